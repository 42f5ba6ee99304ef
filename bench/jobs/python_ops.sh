# The C++ torch ops (issue 15's last criterion: a torch op's host cost <= 5 us over the C++
# call). Like python.sh: the library installed from this build, then python/ built with plain
# CMake against it -- the extension and, torch being importable here, _pipegemm_ops (no kernel
# is rebuilt) -- into its own folder; then what the .so files link and export, the import orders,
# python/tests with the C++ ops (PIPEGEMM_TORCH_BACKEND=cpp: the import fails if they do not
# load) and with the Python ones (=python), and the overhead benchmark. Logs under $OUT, a short
# table last (also printed).
#   usage: scripts/gpu_session.sh bench/jobs/python_ops.sh
PY="python3 -X faulthandler"
PYLIB="$PWD/$BUILD/pylib_ops"
PYBUILD="$BUILD/python_ops"
ops_rc=() # "what rc" lines for the table
note() { ops_rc+=("$(printf '%-44s %s' "$1" "$2")"); }
{
  echo; echo "\$ cmake --install $BUILD --prefix $BUILD/prefix && cmake -S python -B $PYBUILD && cmake --build $PYBUILD"
  cmake --install "$BUILD" --prefix "$PWD/$BUILD/prefix" > /dev/null &&
    cmake -S python -B "$PYBUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/$BUILD/prefix" \
          -DPython_EXECUTABLE="$(command -v python3)" -DSKBUILD_PROJECT_VERSION=0.1.0 > "$OUT/python_ops_configure.log" 2>&1
  rc=$?
  grep "pipegemm python" "$OUT/python_ops_configure.log"
  [ $rc -eq 0 ] && { cmake --build "$PYBUILD" -j 16 > "$OUT/python_ops_build.log" 2>&1; rc=$?; }
  echo "# exit $rc"
  [ $rc -ne 0 ] && tail -30 "$OUT/python_ops_configure.log" "$OUT/python_ops_build.log"
} >> "$OUT/run.log" 2>&1
note "build extension + _pipegemm_ops" "$rc"
rm -rf "$PYLIB" && mkdir -p "$PYLIB/pipegemm" "$PYLIB/tests"
cp python/pipegemm/*.py "$PYLIB/pipegemm/" && cp "$PYBUILD"/_pipegemm*.so "$PYLIB/pipegemm/"
cp python/tests/*.py python/bench_overhead.py "$PYLIB/tests/"
{
  echo; echo "\$ ls pylib_ops/pipegemm; readelf -d (NEEDED, RUNPATH); nm -D --defined-only"
  ls "$PYLIB/pipegemm"
  for so in "$PYLIB"/pipegemm/*.so; do
    echo "## $(basename "$so")"
    readelf -d "$so" | grep -E "NEEDED|RUNPATH" | sed 's/^ *0x[0-9a-f]* *//'
    echo "exported: $(nm -D --defined-only "$so" | awk '{print $3}' | grep -vxE '_edata|_end|__bss_start|_init|_fini' | tr '\n' ' ')"
  done
} >> "$OUT/run.log" 2>&1
OPS_SO=$(ls "$PYLIB"/pipegemm/_pipegemm_ops*.so 2>/dev/null | head -1)
if [ -n "$OPS_SO" ]; then
  extra=$(nm -D --defined-only "$OPS_SO" | awk '{print $3}' | grep -cvxE '_edata|_end|__bss_start|_init|_fini')
  static_cxx=$(readelf -d "$OPS_SO" | grep -c 'libstdc++.so')
  note "_pipegemm_ops: exported symbols (want 0)" "$extra"
  note "_pipegemm_ops: NEEDED libstdc++.so (1: shared; 0: the toolchain linked it statically)" "$static_cxx"
else
  note "_pipegemm_ops built" "no (see python_ops_configure.log)"
fi
for imp in "import pipegemm.torch as t" "import torch, pipegemm.torch as t" "import pipegemm, torch; import pipegemm.torch as t"; do
  {
    echo; echo "\$ $PY -c '$imp; print(t.BACKEND, t.CPP_UNAVAILABLE)'"
    (cd "$PYLIB" && $PY -c "$imp; print(t.BACKEND, t.CPP_UNAVAILABLE)")
    echo "# exit $?"
  } >> "$OUT/run.log" 2>&1
done
backend=$(cd "$PYLIB" && python3 -c "import pipegemm.torch as t; print(t.BACKEND)" 2>/dev/null | tail -1)
note "pipegemm.torch.BACKEND" "${backend:-import failed}"
for be in ${PY_BACKENDS:-cpp python}; do  # PY_BACKENDS=cpp: the C++ ops only (their tests run the Python ops too)
  {
    echo; echo "\$ (cd $BUILD/pylib_ops && PIPEGEMM_TORCH_BACKEND=$be $PY -m unittest discover -s tests -v)"
    (cd "$PYLIB" && PIPEGEMM_TORCH_BACKEND=$be $PY -m unittest discover -s tests -v) > "$OUT/python_ops_tests_$be.log" 2>&1
    rc=$?
    cat "$OUT/python_ops_tests_$be.log"
    echo "# exit $rc"
  } >> "$OUT/run.log" 2>&1
  note "tests, PIPEGEMM_TORCH_BACKEND=$be" "$(grep -E '^(Ran |OK|FAILED)' "$OUT/python_ops_tests_$be.log" | tr '\n' ' ')"
done
{
  echo; echo "\$ (cd $BUILD/pylib_ops && $PY tests/bench_overhead.py)"
  (cd "$PYLIB" && PYTHONPATH="$PYLIB" $PY tests/bench_overhead.py) > "$OUT/python_ops_bench.log" 2>&1
  echo "# exit $?"
  cat "$OUT/python_ops_bench.log"
} >> "$OUT/run.log" 2>&1
{
  echo; echo "## python_ops.sh summary"
  printf '%s\n' "${ops_rc[@]}"
  grep -vE "^\s*$|Warning|warn" "$OUT/python_ops_bench.log" | tail -20
} | tee -a "$OUT/run.log"
