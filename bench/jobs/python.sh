# The Python package on the GPU (issue 15): the library installed from this build, the extension
# built with plain CMake and the device's own nanobind (no scikit-build-core there), then
# python/tests (gemm against torch over random shapes, the torch ops, gradients, opcheck,
# torch.compile of an MLP). Written in session 5, first run next session.
{
  echo; echo "\$ cmake --install $BUILD --prefix $BUILD/prefix && python/ extension"
  cmake --install "$BUILD" --prefix "$PWD/$BUILD/prefix" > /dev/null &&
    cmake -S python -B "$BUILD/python" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$BUILD/prefix" \
          -DPython_EXECUTABLE="$(command -v python3)" -DSKBUILD_PROJECT_VERSION=0.1.0 > /dev/null &&
    cmake --build "$BUILD/python" > /dev/null
  echo "# exit $?"
  mkdir -p "$BUILD/pylib/pipegemm"
  cp python/pipegemm/*.py "$BUILD/pylib/pipegemm/" && cp "$BUILD"/python/_pipegemm*.so "$BUILD/pylib/pipegemm/"
  echo; echo "\$ PYTHONPATH=$BUILD/pylib python3 -m unittest discover -s python/tests -v"
  PYTHONPATH="$PWD/$BUILD/pylib" python3 -m unittest discover -s python/tests -t python/tests -v
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
{
  echo; echo "\$ PYTHONPATH=$BUILD/pylib python3 python/bench_overhead.py"
  PYTHONPATH="$PWD/$BUILD/pylib" python3 python/bench_overhead.py
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
