#!/usr/bin/env bash
# Installs what pipegemm needs on a fresh Debian 12 / 13 machine with the CUDA 13 toolkit:
#   Debian : cmake, ninja, CLI11, nlohmann-json, GoogleTest, python3-venv, python3-dev (the extension)
#   PyPI   : into the project's virtual environment .venv (a stock Debian's python3 is externally
#            managed, PEP 668): the CuTe/CUTLASS headers (nvidia-cutlass, --no-deps), cuobjdump +
#            nvdisasm (for `pipegemm sass`), and the Python package's build tools
#            (scikit-build-core, nanobind). CMake asks .venv's python first (cmake/deps.cmake).
# Idempotent; every failure stops the script with its reason. Nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "scripts/setup.sh: $*" >&2; exit 1; }

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  fail "no nvcc on PATH or in /usr/local/cuda/bin: install the CUDA 13 toolkit first"
fi

need_apt=()
for p in libcli11-dev nlohmann-json3-dev libgtest-dev ninja-build cmake python3 python3-venv python3-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || fail "not a Debian system (no apt-get); install: ${need_apt[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || fail "need root or sudo to install: ${need_apt[*]}"
    SUDO="sudo"
  fi
  echo "scripts/setup.sh: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null ||
    fail "apt-get install ${need_apt[*]} failed"
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python3 ]; then
  echo "scripts/setup.sh: $PY -m venv .venv"
  "$PY" -m venv .venv || fail "could not make .venv with $PY (Debian: apt-get install python3-venv)"
fi
VPY=.venv/bin/python3
pip_install() {
  "$VPY" -m pip install -q --disable-pip-version-check "$@" || fail "pip install $* failed (is PyPI reachable?)"
}
pip_install "scikit-build-core>=0.10" "nanobind>=2.0" "numpy"
# Headers and binaries only: cutlass's Python DSL dependencies are not needed.
pip_install --no-deps "nvidia-cutlass==4.2.0.0" "nvidia-cuda-cuobjdump>=13.0,<14" "nvidia-cuda-nvdisasm>=13.0,<14"
"$VPY" -c "import cutlass_library" 2>/dev/null || fail "nvidia-cutlass installed but cutlass_library does not import"
echo "scripts/setup.sh: ready (.venv: $("$VPY" --version 2>&1))"
