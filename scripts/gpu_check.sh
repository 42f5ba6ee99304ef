#!/usr/bin/env bash
# Checks a build on a GPU: the GPU tests, `verify` of every type, a fuzz of N problems a type, and
# the Python package's tests (torch ops, gradients, torch.compile), then a short table. What CI
# cannot run (it has no GPU). Logs and the table go to $OUT (default /tmp/pipegemm_check).
#
#   scripts/gpu_check.sh [--build DIR] [--tests FILTER] [--fuzz N] [--seed S] [--shapes "MxNxK ..."]
#                        [--no-python] [--memcheck FILTER]
#
#   --build DIR     carried binaries (DIR/pipegemm, DIR/tests/pipegemm_gpu_tests; .xz / .gz unpacked)
#                   or a CMake build tree; default: build/gpu, configured for this GPU and built
#                   (scripts/gpu_common.sh). $PIPEGEMM_PREBUILT=DIR does the same.
#   --tests FILTER  the GPU tests to run (gtest filter, default '*': all of them)
#   --fuzz N        random problems per input type (f16, bf16, i8, f32; the four at once), default 300;
#                   0 skips the fuzz
#   --seed S        the fuzz seed (default 1)
#   --shapes LIST   the shapes `verify --kernel all` runs for each type (default: 127x129x40, odd and
#                   below every tile, and 1000x1001x1000, partial tiles on every side)
#   --no-python     skip the Python package
#   --memcheck F    also run the GPU tests of filter F under compute-sanitizer memcheck
#
# Exit status: 0 when every step passed. One line per step in $OUT/summary.txt (also printed).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_common.sh
OUT=${OUT:-/tmp/pipegemm_check}
BUILD_DIR=${PIPEGEMM_PREBUILT:-}
TESTS='*'
FUZZ=300
SEED=1
SHAPES="127x129x40 1000x1001x1000"
PY_TESTS=1
MEMCHECK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD_DIR=$2; shift 2 ;;
    --tests) TESTS=$2; shift 2 ;;
    --fuzz) FUZZ=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --shapes) SHAPES=$2; shift 2 ;;
    --no-python) PY_TESTS=0; shift ;;
    --memcheck) MEMCHECK=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/gpu_check.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
for f in gpu_tests verify fuzz python; do : > "$OUT/$f.log"; done
T0=$(date +%s)
ROWS=()
FAILED=0
# row STEP RC WHAT SECONDS: one line of the table; a non-zero RC fails the check.
row() {
  ROWS+=("$(printf '%-26s %-5s %6ss  %s' "$1" "$([ "$2" -eq 0 ] && echo PASS || echo FAIL)" "$4" "$3")")
  [ "$2" -eq 0 ] || FAILED=1
}
# logged LOG CMD...: the command line, its output and its exit status appended to LOG.
logged() {
  local log=$1 rc
  shift
  { echo; echo "\$ $*"; } >> "$log"
  "$@" >> "$log" 2>&1
  rc=$?
  echo "# exit $rc" >> "$log"
  return $rc
}

{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
  nvcc --version 2>/dev/null | tail -1
  echo "# commit: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
} > "$OUT/build.log" 2>&1

# 1. The binaries.
t=$(date +%s)
PIPEGEMM_TARGETS="pipegemm_cli pipegemm_gpu_tests" pipegemm_binaries "$BUILD_DIR" "$OUT/build.log"
rc=$?
row build $rc "$BUILD" $(( $(date +%s) - t ))
if [ $rc -ne 0 ]; then printf '%s\n' "${ROWS[@]}" | tee "$OUT/summary.txt"; exit 1; fi

# 2. The GPU tests.
t=$(date +%s)
if [ -x "$BUILD/tests/pipegemm_gpu_tests" ]; then
  logged "$OUT/gpu_tests.log" "$BUILD/tests/pipegemm_gpu_tests" --gtest_filter="$TESTS" --gtest_brief=1
  rc=$?
  row "GPU tests ($TESTS)" $rc "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu_tests.log" | tr -s ' ' | tr '\n' ' ')" $(( $(date +%s) - t ))
else
  row "GPU tests" 1 "no $BUILD/tests/pipegemm_gpu_tests" 0
fi
if [ -n "$MEMCHECK" ]; then
  t=$(date +%s)
  logged "$OUT/gpu_tests.log" compute-sanitizer --tool memcheck --print-limit 5 --error-exitcode 3 \
    "$BUILD/tests/pipegemm_gpu_tests" --gtest_filter="$MEMCHECK" --gtest_brief=1
  rc=$?
  row "memcheck ($MEMCHECK)" $rc "$(grep -E 'ERROR SUMMARY' "$OUT/gpu_tests.log" | tail -1)" $(( $(date +%s) - t ))
fi

# 3. verify of every type: every variant that accepts each shape, then auto (the user's call path).
t=$(date +%s)
rc=0
n=0
for types in "f16" "f16 --acc f16" "bf16 --out-dtype bf16" "i8 --acc i32 --out-dtype i32" \
             "i8 --acc i32 --out-dtype f32" "f32 --out-dtype f32"; do
  for s in $SHAPES; do
    # shellcheck disable=SC2086  # the types are several flags
    logged "$OUT/verify.log" "$PG" verify --shape "$s" --kernel all --dtype $types || rc=1
    logged "$OUT/verify.log" "$PG" verify --shape "$s" --kernel auto --dtype $types || rc=1
    n=$((n + 2))
  done
done
row "verify, every type" $rc "$n runs over $SHAPES; $(grep -c ' FAIL' "$OUT/verify.log") FAIL lines" $(( $(date +%s) - t ))

# 4. fuzz: N problems a type, the four types at once (each its own process and log section).
if [ "$FUZZ" -gt 0 ]; then
  t=$(date +%s)
  for ty in f16 bf16 i8 f32; do
    ("$PG" fuzz --count "$FUZZ" --seed "$SEED" --dtype "$ty" > "$OUT/fuzz_$ty.tmp" 2>&1; echo "# exit $?" >> "$OUT/fuzz_$ty.tmp") &
  done
  wait
  rc=0
  what=""
  : > "$OUT/fuzz.log"
  for ty in f16 bf16 i8 f32; do
    { echo; echo "\$ $PG fuzz --count $FUZZ --seed $SEED --dtype $ty"; cat "$OUT/fuzz_$ty.tmp"; } >> "$OUT/fuzz.log"
    grep -q "^# exit 0$" "$OUT/fuzz_$ty.tmp" || rc=1
    what+="$ty $(grep -oE '[0-9]+ mismatch' "$OUT/fuzz_$ty.tmp" | tail -1 | cut -d' ' -f1), "
    rm -f "$OUT/fuzz_$ty.tmp"
  done
  row "fuzz, $FUZZ a type" $rc "mismatches: ${what%, }" $(( $(date +%s) - t ))
fi

# 5. The Python package: its tests with the C++ torch ops, where built, and with the Python ones.
if [ "$PY_TESTS" = 1 ]; then
  t=$(date +%s)
  if python_package "$OUT/python.log"; then
    row "python package" 0 "$(grep '^# python package' "$OUT/python.log" | tail -1 | cut -c 18-)" $(( $(date +%s) - t ))
    rm -rf "$BUILD/pytests" && cp -r python/tests "$BUILD/pytests"
    for be in cpp python; do
      t=$(date +%s)
      [ $be = cpp ] && ! grep -q "torch ops cpp" "$OUT/python.log" && continue
      (cd "$BUILD" && export PIPEGEMM_TORCH_BACKEND=$be &&
         logged "$OUT/python.log" "$PYTHON" -X faulthandler -m unittest discover -s pytests -v)
      rc=$?
      row "python tests ($be ops)" $rc "$(grep -E '^(Ran |OK|FAILED)' "$OUT/python.log" | tail -2 | tr '\n' ' ')" $(( $(date +%s) - t ))
    done
  else
    row "python package" 1 "not importable, not built: $OUT/python.log" $(( $(date +%s) - t ))
  fi
fi

ROWS+=("$(printf '%-26s %-5s %6ss  %s' total "$([ $FAILED -eq 0 ] && echo PASS || echo FAIL)" $(( $(date +%s) - T0 )) "$(sed -n 2p "$OUT/build.log")")")
printf '%s\n' "${ROWS[@]}" | tee "$OUT/summary.txt"
exit $FAILED
