#!/usr/bin/env bash
# Installs what pipegemm needs on a fresh Debian machine with the CUDA 13 toolkit:
# Debian headers (CLI11, nlohmann-json, GoogleTest) and, from PyPI, the CuTe/CUTLASS
# headers and cuobjdump + nvdisasm (for `pipegemm sass`). Idempotent; nothing is downloaded at run time.
set -euo pipefail
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
need_apt=()
for p in libcli11-dev nlohmann-json3-dev libgtest-dev ninja-build cmake; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
PY=${PYTHON:-python3}
$PY -m pip install -q --no-deps "nvidia-cutlass==4.2.0.0" "nvidia-cuda-cuobjdump>=13.0,<14" "nvidia-cuda-nvdisasm>=13.0,<14" 2>&1 | grep -v "WARNING: Running pip as" || true
