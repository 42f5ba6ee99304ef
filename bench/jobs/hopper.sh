# Issue 6 (k5, the Hopper pipeline): correctness first (every command under a timeout, so a
# pipeline deadlock costs a minute, not the session), the GPU tests, then the six-shape
# benchmark beside cuBLAS (fp32 compute, same buffers), then a raster-band sweep.
#   scripts/gpu_session.sh bench/jobs/hopper.sh pipegemm_cli pipegemm_gpu_tests
K5F16="--kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_f16_nocluster"
K5BF16="--kernel k5_ws_tma_wgmma_bf16 --kernel k5_ws_tma_wgmma_bf16_nocluster"
# pgt SECONDS ARGS...: pg under a time limit.
pgt() {
  local t=$1; shift
  echo; echo "\$ pipegemm $*"
  timeout "$t" "$PG" "$@"
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1

pgt 60 verify --shape 4096x4096x256 $K5F16 $K5BF16
pgt 60 verify --shape 1024x1536x4096 $K5F16 $K5BF16
{ echo; echo "\$ timeout 300 pipegemm_gpu_tests --gtest_filter=K5*"; timeout 300 "$BUILD/tests/pipegemm_gpu_tests" --gtest_filter='K5*' --gtest_brief=1; echo "# exit $?"; } >> "$OUT/run.log" 2>&1
for s in 4096x4096x4096 6144x6144x6144 8192x8192x8192 16384x1024x4096 8192x28672x4096 4096x4096x256; do
  pgt 90 bench --shape $s $K5F16 --reps 40
  pgt 90 bench --shape $s $K5BF16 --reps 40
done
for g in 4 8 32; do
  for s in 6144x6144x6144 8192x8192x8192 16384x1024x4096; do
    echo "# PIPEGEMM_K5_RASTER_GROUP=$g" >> "$OUT/run.log"
    PIPEGEMM_K5_RASTER_GROUP=$g pgt 90 bench --shape $s $K5BF16 --reps 40
  done
done
pgt 150 verify --shape 8192x8192x8192 $K5BF16
