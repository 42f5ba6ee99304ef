# The Python package on the GPU (issue 15): the library installed from this build, the extension
# built with plain CMake and the device's own nanobind (no scikit-build-core there), then
# python/tests (gemm against torch over random shapes, the torch ops, gradients, opcheck,
# torch.compile of an MLP) and the overhead benchmark. Python runs with -X faulthandler (a crash
# prints its stack) from pylib, never from python/ (whose pipegemm/ has no extension in it).
PY="python3 -X faulthandler"
PYLIB="$PWD/$BUILD/pylib"
{
  echo; echo "\$ cmake --install $BUILD --prefix $BUILD/prefix && python/ extension"
  cmake --install "$BUILD" --prefix "$PWD/$BUILD/prefix" > /dev/null &&
    cmake -S python -B "$BUILD/python" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$BUILD/prefix" \
          -DPython_EXECUTABLE="$(command -v python3)" -DSKBUILD_PROJECT_VERSION=0.1.0 > /dev/null &&
    cmake --build "$BUILD/python" > /dev/null
  echo "# exit $?"
  rm -rf "$PYLIB" && mkdir -p "$PYLIB/pipegemm" "$PYLIB/tests"
  cp python/pipegemm/*.py "$PYLIB/pipegemm/" && cp "$BUILD"/python/_pipegemm*.so "$PYLIB/pipegemm/"
  cp python/tests/*.py python/bench_overhead.py "$PYLIB/tests/"
  ls "$PYLIB/pipegemm"
  for imp in "import pipegemm" "import torch, pipegemm" "import pipegemm, torch" "import pipegemm.torch"; do
    echo; echo "\$ $PY -c '$imp; print(pipegemm.__version__)'"
    (cd "$PYLIB" && $PY -c "$imp; print(pipegemm.__version__)")
    echo "# exit $?"
  done
  echo; echo "\$ (cd $BUILD/pylib && $PY -m unittest discover -s tests -v)"
  (cd "$PYLIB" && $PY -m unittest discover -s tests -v)
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
{
  echo; echo "\$ (cd $BUILD/pylib && $PY tests/bench_overhead.py)"
  (cd "$PYLIB" && PYTHONPATH="$PYLIB" $PY tests/bench_overhead.py)
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
