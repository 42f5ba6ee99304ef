#!/usr/bin/env bash
# Draws the timelines of docs/trace/ again on a GPU (docs/trace.md): the seed kernel, k4, k4
# persistent, k5 and k5 B-resident on the seed shape 81920x256x256, k5 on 4096^3 and the ping-pong
# k5 on 4096x4096x256 (one SM each), FP16, seed 20261202; k5 BF16 4096^3 with bias + GELU (two SMs).
# Each traced launch is verified like `pipegemm verify` (exit 1 if one is not).
#
#   scripts/trace_pictures.sh [--build DIR] [--out DIR]
#
#   --build DIR   a traced build (-DPIPEGEMM_TRACE=ON) or its carried CLI; default build/trace,
#                 configured and built here (the CLI only, ~2 minutes on 16 cores)
#   --out DIR     where the SVGs go (default docs/trace); the Perfetto JSON of each beside them in
#                 ${OUT:-/tmp/pipegemm_trace}
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/gpu_common.sh
BUILD_DIR=build/trace
SVG=docs/trace
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD_DIR=$2; shift 2 ;;
    --out) SVG=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/trace_pictures.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
JSON=${OUT:-/tmp/pipegemm_trace}
mkdir -p "$SVG" "$JSON"
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && [ ! -e "$BUILD_DIR/pipegemm" ] && [ ! -e "$BUILD_DIR/pipegemm.xz" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a \
        -DPIPEGEMM_TRACE=ON -DPIPEGEMM_BUILD_TESTS=OFF > "$JSON/build.log" 2>&1 ||
    { tail -20 "$JSON/build.log"; exit 1; }
fi
PIPEGEMM_TARGETS=pipegemm_cli pipegemm_binaries "$BUILD_DIR" "$JSON/build.log" || { tail -20 "$JSON/build.log"; exit 1; }
RC=0
trace() {  # trace NAME ARGS...: one picture, $SVG/NAME.svg
  local name=$1
  shift
  echo "\$ pipegemm trace $* --out $JSON/$name.json --svg $SVG/$name.svg"
  "$PG" trace "$@" --out "$JSON/$name.json" --svg "$SVG/$name.svg" || RC=1
}
for k in seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k4_f16_256x128x64_s3_persistent k5_f16_128x256x64_s4 \
         k5_f16_128x256x64_s4_b_resident; do
  trace $k --kernel $k --shape 81920x256x256 --dtype f16 --seed 20261202
done
trace k5_f16_128x256x64_s4_4096 --kernel k5_f16_128x256x64_s4 --shape 4096x4096x4096 --dtype f16 --seed 20261202 --sms 1
trace k5_pingpong_4096x4096x256 --kernel k5_f16_64x256x64_s4_pingpong --shape 4096x4096x256 --dtype f16 \
      --seed 20261202 --sms 1
trace k5_bf16_bias_gelu_4096 --kernel k5_bf16_128x256x64_s4 --shape 4096x4096x4096 --dtype bf16 --out-dtype bf16 \
      --bias col --act gelu_tanh --sms 2 --seed 7
exit $RC
