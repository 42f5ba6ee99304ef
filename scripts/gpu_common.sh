# Shared by scripts/gpu_check.sh and bench/run_reference.sh (sourced, not run): where the pipegemm
# binaries come from, and the Python package built beside them.
#
#   pipegemm_binaries DIR LOG   sets BUILD (absolute) and PG (the CLI). DIR is
#     - a folder of carried binaries in a build tree's layout: DIR/pipegemm and, for the GPU tests,
#       DIR/tests/pipegemm_gpu_tests -- plain, or packed as FILE.xz / FILE.gz (`xz -9` makes the CLI
#       ~5.5 MB instead of ~28: a build made elsewhere travels to a GPU machine with the tree);
#     - a CMake build tree (it holds CMakeCache.txt): brought up to date (its targets only);
#     - empty: build/gpu, configured here for $PIPEGEMM_ARCHS (default: the GPU's own
#       architecture, 90a on Hopper) and built (~2.5 minutes on 16 cores for sm_90a; the CuTe
#       headers come from .venv or from .deps: scripts/setup.sh, scripts/stage_deps.sh).
#     $PIPEGEMM_PREBUILT=DIR is the same as DIR. The build's output goes to LOG.
#   python_package LOG          makes `import pipegemm.torch` work for $PYTHON (default python3) and
#     sets PYLIB / PYTHONPATH: an importable pipegemm if there is one already, else $BUILD/pylib
#     (carried: pipegemm/*.py and the extension's .so files, .xz allowed), else the extension and
#     the C++ torch ops built with CMake against this build's installed library
#     (python/README.md; the Python's own nanobind, torch for the C++ ops). Returns 1 if none works.
#   unpack FILE                 FILE.xz or FILE.gz into FILE, executable.

PYTHON=${PYTHON:-python3}

unpack() {
  if [ -f "$1.xz" ]; then
    xz -d -f "$1.xz" 2>/dev/null ||
      "$PYTHON" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1] + ".xz"), open(sys.argv[1], "wb"))' "$1"
  elif [ -f "$1.gz" ]; then
    gunzip -f "$1.gz"
  fi
  [ -f "$1" ] && chmod +x "$1"
  return 0
}

# The CUDA architecture of GPU 0 in CMake's form: 9.0 -> 90a (wgmma needs the "a" target), 8.9 -> 89.
gpu_arch() {
  local cc
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  case "$cc" in
    90) echo 90a ;;
    "") echo 90a ;;
    *) echo "$cc" ;;
  esac
}

pipegemm_binaries() {
  local dir=${1:-${PIPEGEMM_PREBUILT:-}} log=${2:-/dev/null} t0=$(date +%s) rc
  if [ -n "$dir" ] && [ ! -f "$dir/CMakeCache.txt" ]; then
    BUILD=$(cd "$dir" && pwd) || return 1
    unpack "$BUILD/pipegemm"
    unpack "$BUILD/tests/pipegemm_gpu_tests"
    [ -x "$BUILD/pipegemm" ] || { echo "no pipegemm (or pipegemm.xz / .gz) in $BUILD" >&2; return 1; }
    echo "# carried binaries in $BUILD (no build)" >> "$log"
  else
    BUILD=$(mkdir -p "${dir:-build/gpu}" && cd "${dir:-build/gpu}" && pwd) || return 1
    if [ ! -f "$BUILD/CMakeCache.txt" ]; then
      cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_CUDA_ARCHITECTURES="${PIPEGEMM_ARCHS:-$(gpu_arch)}" >> "$log" 2>&1 || {
        echo "cmake configure failed: $log" >&2; tail -20 "$log" >&2; return 1; }
    fi
    cmake --build "$BUILD" -j "$(nproc)" ${PIPEGEMM_TARGETS:+--target $PIPEGEMM_TARGETS} >> "$log" 2>&1
    rc=$?
    echo "# build of $BUILD: rc=$rc in $(( $(date +%s) - t0 ))s" >> "$log"
    if [ $rc -ne 0 ]; then
      grep -E "error|FAILED" "$log" | head -20 >&2
      return 1
    fi
  fi
  PG=$BUILD/pipegemm
  return 0
}

python_package() {
  local log=${1:-/dev/null} so version
  if "$PYTHON" -c "import pipegemm.torch" >> "$log" 2>&1; then
    PYLIB=$("$PYTHON" -c "import os, pipegemm; print(os.path.dirname(os.path.dirname(pipegemm.__file__)))")
    python_package_line >> "$log" 2>&1
    return 0
  fi
  PYLIB=$BUILD/pylib
  if [ -f "$BUILD/CMakeCache.txt" ]; then  # a build tree: python/ built (incrementally) against it
    version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml | head -1)
    { cmake --install "$BUILD" --prefix "$BUILD/prefix" > /dev/null &&
      cmake -S python -B "$BUILD/python" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$BUILD/prefix" \
            -DPython_EXECUTABLE="$(command -v "$PYTHON")" -DSKBUILD_PROJECT_VERSION="${version:-0.1.0}" &&
      cmake --build "$BUILD/python" -j "$(nproc)"; } >> "$log" 2>&1 || {
      echo "# python package: the CMake build of python/ failed (see above)" >> "$log"; return 1; }
    rm -rf "$PYLIB" && mkdir -p "$PYLIB/pipegemm"
    cp "$BUILD"/python/_pipegemm*.so "$PYLIB/pipegemm/"
  elif ! ls "$PYLIB"/pipegemm/_pipegemm*.so* > /dev/null 2>&1; then
    echo "# python package: none importable, none carried in $PYLIB, and $BUILD is no build tree" >> "$log"
    return 1
  fi
  for so in "$PYLIB"/pipegemm/*.so.xz "$PYLIB"/pipegemm/*.so.gz; do
    [ -e "$so" ] && unpack "${so%.*}"
  done
  cp python/pipegemm/*.py "$PYLIB/pipegemm/"  # the sources of this tree beside the carried or built .so
  export PYTHONPATH=$PYLIB${PYTHONPATH:+:$PYTHONPATH}
  python_package_line >> "$log" 2>&1
}

# "# python package: <where> pipegemm <version> torch ops <cpp|python> [why not cpp]"; fails when
# pipegemm.torch does not import.
python_package_line() {
  "$PYTHON" -c "import os, pipegemm, pipegemm.torch as t
print('# python package:', os.path.dirname(os.path.dirname(pipegemm.__file__)), 'pipegemm', pipegemm.__version__,
      'torch ops', t.BACKEND, t.CPP_UNAVAILABLE or '')"
}
