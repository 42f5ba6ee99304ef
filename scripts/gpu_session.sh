#!/usr/bin/env bash
# One GPU session (device tool): build for sm_90a with the staged .deps, run the GPU tests, then
# the job file's commands. Every command and its output goes to $OUT/run.log with GPU and date,
# ready to be kept under bench/results/.
#   usage: [PIPEGEMM_ARCHS="80;90a"] scripts/gpu_session.sh bench/jobs/<job>.sh [build-targets...]
# PIPEGEMM_ARCHS (default 90a): the CUDA architectures to build; "80;90a" builds what CI builds,
# so the job can also run the CPU tests and compare the machine code of both archs.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pipegemm_out}
mkdir -p "$OUT"
JOB=${1:?job file}
shift
BUILD=build/gpu
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  nvcc --version | tail -1
} > "$OUT/run.log" 2>&1
t0=$(date +%s)
# CARD: the card's tune table under data/tune/ ("NVIDIA H200" -> h200.json, "NVIDIA H100 80GB HBM3" ->
# h100.json; another card: gpu, no table yet).
CARD=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep -oiE 'H[0-9]{3}' | head -1 | tr 'A-Z' 'a-z')
CARD=${CARD:-gpu}
# PIPEGEMM_PREBUILT=DIR: binaries built here (CI's preset builds sm_90a too) in a build tree's layout
# -- DIR/pipegemm, and DIR/tests/pipegemm_gpu_tests if the job runs GPU tests -- carried (`carry`)
# to skip the ~2.5-minute build when the call's device minutes cannot pay for one.
# Carried packed -- DIR/pipegemm.xz and DIR/tests/pipegemm_gpu_tests.xz (`xz -9`: ~5.5 MB each against
# ~28; .gz, ~9.5 MB, also taken) -- so both and a previous CLI fit a call beside the tree (~40 MB).
# unpack FILE: FILE.xz or FILE.gz into FILE, executable (python's lzma where xz is missing).
unpack() {
  if [ -f "$1.xz" ]; then
    xz -d -f "$1.xz" 2>/dev/null ||
      python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1] + ".xz"), open(sys.argv[1], "wb"))' "$1"
  elif [ -f "$1.gz" ]; then
    gunzip -f "$1.gz"
  fi
  [ -f "$1" ] && chmod +x "$1"
  return 0
}
if [ -n "${PIPEGEMM_PREBUILT:-}" ]; then
  BUILD=$PIPEGEMM_PREBUILT
  unpack "$BUILD/pipegemm"
  unpack "$BUILD/tests/pipegemm_gpu_tests"
  echo "# prebuilt binaries in $BUILD (no build)" | tee -a "$OUT/run.log"
  PG=$PWD/$BUILD/pipegemm
else
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${PIPEGEMM_ARCHS:-90a}" \
        -DPIPEGEMM_DEPS_DIR="$PWD/.deps" -DPIPEGEMM_K5_C_GROUP= > "$OUT/build.log" 2>&1 &&
    cmake --build $BUILD -j 16 ${1:+--target "$@"} >> "$OUT/build.log" 2>&1
  rc=$?
  echo "# build rc=$rc in $(( $(date +%s) - t0 ))s" | tee -a "$OUT/run.log"
  if [ $rc -ne 0 ]; then grep -E "error|FAILED" "$OUT/build.log" | head -40; tail -20 "$OUT/build.log"; exit 1; fi
  PG=$PWD/$BUILD/pipegemm
fi
# note TEXT...: a "# TEXT" line in run.log (a job's own markers between its commands).
note() { echo "# $*" >> "$OUT/run.log"; }
# run_logged BINARY LABEL ARGS...: run a pipegemm build, log the exact command (as LABEL ARGS) and its
# output.
run_logged() {
  local bin=$1 label=$2
  shift 2
  echo; echo "\$ $label $*"
  "$bin" "$@"
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
# pg ARGS...: this build's CLI.
pg() { run_logged "$PG" pipegemm "$@"; }
# pgp ARGS...: a previous build's CLI, carried packed as .carry/prev/pipegemm.xz (or .gz; the job says
# which commit): a change is timed as the same commands in alternating processes.
pgp() {
  local prev=$PWD/.carry/prev/pipegemm
  unpack "$prev"
  run_logged "$prev" "pipegemm(prev)" "$@"
}
# gtest BINARY [filter]: run a GPU test binary, log it.
gt() {
  echo; echo "\$ $1 --gtest_filter=${2:-*}"
  "$BUILD/tests/$1" --gtest_filter="${2:-*}" --gtest_brief=1
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
# gt_memcheck BINARY FILTER TIMEOUT_S: the GPU tests of FILTER under compute-sanitizer memcheck
# (exit 3 on any error), its summary logged.
gt_memcheck() {
  echo; echo "\$ compute-sanitizer --tool memcheck $1 --gtest_filter=$2"
  timeout "$3" compute-sanitizer --tool memcheck --print-limit 5 --error-exitcode 3 "$BUILD/tests/$1" \
    --gtest_filter="$2" --gtest_brief=1 2>&1 | tail -8
  echo "# exit ${PIPESTATUS[0]}"
} >> "$OUT/run.log" 2>&1
# verify_every_type SHAPE: `verify --kernel all` for each of the six type combinations.
verify_every_type() {
  for t in "f16" "f16 --acc f16" "bf16 --out-dtype bf16" "i8 --acc i32 --out-dtype i32" \
           "i8 --acc i32 --out-dtype f32" "f32 --out-dtype f32"; do
    pg verify --shape "$1" --kernel all --dtype $t
  done
}
# verify_peer_cases TYPE: both cuBLAS peers and auto on the rows where cublasGemmEx ran ahead of
# cuBLASLt's pick (and a tiny one), then cuBLASLt alone with C in place + beta + a batch with a
# broadcast operand, NN with alpha and beta, C apart + bias + GELU (no GemmEx there), and C apart in a
# batch -- the first-use timing's paths (src/kernels/cublaslt_peer.cpp).
verify_peer_cases() {
  local t=$1 s
  for s in 428x755x442 856x66x1758 127x260x8; do
    pg verify --shape $s --dtype $t --out-dtype $t --kernel auto cublas_$t cublaslt_$t
  done
  pg verify --shape 333x520x136 --dtype $t --out-dtype $t --kernel cublaslt_$t --beta 0.5 --c d --batch 3 --broadcast b
  pg verify --shape 300x200x64 --dtype $t --out-dtype $t --kernel cublaslt_$t --layout NN --alpha 2 --beta -1 --c d
  pg verify --shape 1000x1000x520 --dtype $t --out-dtype $t --kernel cublaslt_$t --beta 1 --c apart --bias col --act gelu_tanh
  pg verify --shape 77x304x1000 --dtype $t --out-dtype $t --kernel cublaslt_$t --beta 1 --c apart --batch 2 --broadcast a  # (N = 301 rows off 16 bytes: refused, rows_aligned_for_lt -- session 36 call 1)
}
# fuzz_types COUNT TIMEOUT_S TYPE:SEED...: `fuzz` of each type with its seed, each its own process
# at once (its log under $OUT/fuzz_TYPE.log), then their summaries into run.log.
fuzz_types() {
  local n=$1 limit=$2 ts
  shift 2
  for ts in "$@"; do
    (timeout "$limit" "$PG" fuzz --count "$n" --seed "${ts#*:}" --dtype "${ts%%:*}" > "$OUT/fuzz_${ts%%:*}.log" 2>&1
     echo "# exit $?" >> "$OUT/fuzz_${ts%%:*}.log") &
  done
  wait
  for ts in "$@"; do
    { echo; echo "\$ pipegemm fuzz --count $n --seed ${ts#*:} --dtype ${ts%%:*}   # (the types ran at once: $*)"
      grep -v "problems, .* runs, .* mismatch(es), .* s$" "$OUT/fuzz_${ts%%:*}.log"; } >> "$OUT/run.log"
  done
}
# fuzz_every_type COUNT SEED [TIMEOUT_S]: fuzz_types of the four input types, one seed.
fuzz_every_type() {
  fuzz_types "$1" "${3:-480}" f16:"$2" bf16:"$2" i8:"$2" f32:"$2"
}
# epilogue_cost SETTING RUN [F16_RUNS]: issue 13's epilogue_cost suite, burst, the 128x256 k5 beside
# cuBLASLt (or $EPI_KERNELS, '@' for the type), BF16 (and FP16 while RUN <= F16_RUNS, default 2), into
# $OUT/epi_<type>_<SETTING>_run<RUN>.md -- alternating settings between calls is the measure
# (bench/results/semantics_collate.py).
epilogue_cost() {
  local t ks=${EPI_KERNELS:-"k5_@_128x256x64_s4 cublaslt_@"}
  for t in bf16 f16; do
    [ $t = f16 ] && [ "$2" -gt "${3:-2}" ] && continue
    echo "# epilogue_cost $t run $2: $1" >> "$OUT/run.log"
    pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel ${ks//@/$t} \
       --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_${t}_$1_run$2.md"
  done
}
# alternate_knob VAR TAG RUNS: epilogue_cost with k5's 128x256 alone (--no-peers) and the environment
# knob VAR at 0 and 1 in turn, each run its own process (a knob is read once): RUNS runs a setting
# (FP16 in the first 2), into $OUT/epi_<type>_<TAG><value>_run<i>.md (`semantics_collate.py --group '<TAG>\d'`).
alternate_knob() {
  local i v
  for i in $(seq "$3"); do
    for v in 0 1; do
      export "$1=$v"
      EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" epilogue_cost "$2$v" "$i" 2
    done
  done
  unset "$1"
}
# trace_epilogues TAG: the traced build's k5_bf16_128x256x64_s4 at 4096^3 plain, with a bias and with
# bias + GELU (SMs 0-1, seed 7), into $OUT/trace_<plain|bias|bias_gelu>_TAG.{json,svg}
# (bench/results/trace_boundaries.py reads them).
trace_epilogues() {
  local e tag
  for e in plain "bias col" "bias col --act gelu_tanh"; do
    tag=$(echo "$e" | tr -d ' -' | sed 's/biascolactgelu_tanh/bias_gelu/;s/biascol/bias/')
    pgt trace --kernel k5_bf16_128x256x64_s4 --shape 4096x4096x4096 --dtype bf16 --out-dtype bf16 \
        $([ "$e" = plain ] || echo "--$e") --sms 2 --seed 7 --out "$OUT/trace_${tag}_$1.json" --svg "$OUT/trace_${tag}_$1.svg"
  done
}
# in_time BY_S WHAT: true while the call has run at most BY_S seconds; past that, WHAT is noted in
# run.log as skipped (the call's limit is 600 s).
in_time() {
  [ $(( $(date +%s) - t0 )) -le "$1" ] && return 0
  echo "# skipped $2: out of call time" >> "$OUT/run.log"
  return 1
}
# tune_copy SUITE BY_S: tune SUITE, FP16 and BF16 (each while the call is under BY_S seconds), into a
# copy of this card's shipped table ($PWD/${CARD}_job.json from data/tune/$CARD.json, or empty where
# none ships; kept as $OUT/$CARD.json), and point auto at that copy ($PIPEGEMM_TUNE_CACHE) for the rest
# of the job; called again, it adds to the same copy. $PIPEGEMM_AUTO_ALSO opts by-name variants in.
# A third argument "new" times only the buckets the table lacks (no --force).
tune_copy() {
  local t table=$PWD/${CARD}_job.json
  [ -f "$table" ] || [ ! -f "data/tune/$CARD.json" ] || cp "data/tune/$CARD.json" "$table"
  for t in f16 bf16; do
    in_time "$2" "tune $t" || continue
    pg tune --suite "$1" --dtype $t --output "$table" $([ "${3:-}" = new ] || echo --force)
  done
  [ -f "$table" ] && cp "$table" "$OUT/$CARD.json"
  export PIPEGEMM_TUNE_CACHE=$table
}
# auto_suite SUITE TAG BY_S BENCH_ARGS...: `bench --kernel auto` over SUITE, FP16 and BF16 (each while
# the call is under BY_S seconds), into $OUT/<TAG>_<type>_auto.md.
# auto_pair (same arguments): this build (pg) then the previous one (pgp) a type, into
# $OUT/<TAG>_<type>_auto_new.md and ..._auto_prev.md: a change measured in one call.
auto_suite() { auto_over one "$@"; }
auto_pair() { auto_over pair "$@"; }
auto_over() {
  local mode=$1 suite=$2 tag=$3 by=$4 t
  shift 4
  for t in f16 bf16; do
    in_time "$by" "auto $tag $t" || continue
    local args=(bench --suite "$suite" --dtype $t --out-dtype $t --kernel auto "$@")
    if [ "$mode" = pair ]; then
      pg "${args[@]}" --output "$OUT/${tag}_${t}_auto_new.md"
      pgp "${args[@]}" --output "$OUT/${tag}_${t}_auto_prev.md"
    else
      pg "${args[@]}" --output "$OUT/${tag}_${t}_auto.md"
    fi
  done
}
# build_traced [JOBS]: the traced build (docs/trace.md: -DPIPEGEMM_TRACE=ON, the CLI only) in
# build/trace, its log in /tmp; pgt ARGS...: run that build's pipegemm, logged like pg.
TRACE_BUILD=build/trace
build_traced() {
  local t=$(date +%s)
  cmake -S . -B $TRACE_BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
        -DPIPEGEMM_DEPS_DIR="$PWD/.deps" -DPIPEGEMM_TRACE=ON -DPIPEGEMM_BUILD_TESTS=OFF > /tmp/build_trace.log 2>&1 &&
    cmake --build $TRACE_BUILD -j "${1:-16}" --target pipegemm_cli >> /tmp/build_trace.log 2>&1
  local rc=$?
  echo "# traced build rc=$rc in $(( $(date +%s) - t ))s" >> "$OUT/run.log"
  grep -E "error" /tmp/build_trace.log | head -10 >> "$OUT/run.log"
  return $rc
}
pgt() { run_logged "$PWD/$TRACE_BUILD/pipegemm" "pipegemm(traced)" "$@"; }
rm -f "$PWD/${CARD}_job.json"  # a warm machine may keep one from a job cut off at the call's limit
source "$JOB"
rm -f "$PWD/${CARD}_job.json"
echo "# total $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
# The device returns at most 8 files from $OUT (session 17 lost a run.log that way): past that,
# everything but run.log and build.log goes into one tarball, results.tar, so the log comes back.
n=$(find "$OUT" -type f | wc -l)
if [ "$n" -gt 8 ]; then
  (cd "$OUT" && find . -type f ! -name run.log ! -name build.log ! -name results.tar -print0 | tar --null -cf results.tar -T - --remove-files)
  find "$OUT" -mindepth 1 -type d -empty -delete
  echo "# $n files under \$OUT: all but run.log and build.log packed into results.tar (tar -xf to read)" >> "$OUT/run.log"
fi
