#!/usr/bin/env bash
# Copies the installed third-party headers into the git-ignored .deps/ so that they can travel
# to a GPU machine that has no network (device tool: carry .deps). Never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python3 ] && PY=.venv/bin/python3  # scripts/setup.sh installs CuTe into .venv
SRC=$("$PY" -c "import cutlass_library,os;print(os.path.join(os.path.dirname(cutlass_library.__file__),'source'))")
rm -rf .deps && mkdir -p .deps/cutlass/tools/util .deps/include
cp -r "$SRC/include" .deps/cutlass/include
cp -r "$SRC/tools/util/include" .deps/cutlass/tools/util/include
cp -r /usr/include/CLI /usr/include/nlohmann .deps/include/
cp -r /usr/src/googletest .deps/googletest
du -sh .deps
