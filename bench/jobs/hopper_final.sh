# Issue 6 acceptance run (k5): verify on the shapes, a misaligned refusal and the
# automatic choice around it, the GPU tests, the six-shape benchmark beside cuBLAS (fp32
# compute, same buffers) for FP16 and BF16, memcheck on a small odd shape.
# The *_deferred_store variants it names were registered for this run only; the default
# variants now route K <= 512 to that kernel (src/kernels/k5_ws_tma_wgmma_{f16,bf16}.cu).
#   scripts/gpu_session.sh bench/jobs/hopper_final.sh pipegemm_cli pipegemm_gpu_tests
K5F16="--kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_f16_nocluster --kernel k5_ws_tma_wgmma_f16_deferred_store"
K5BF16="--kernel k5_ws_tma_wgmma_bf16 --kernel k5_ws_tma_wgmma_bf16_nocluster --kernel k5_ws_tma_wgmma_bf16_deferred_store"
K5OUT32="--kernel k5_ws_tma_wgmma_f16_f32out --kernel k5_ws_tma_wgmma_bf16_f32out"
# pgt SECONDS ARGS...: pg under a time limit.
pgt() {
  local t=$1; shift
  echo; echo "\$ pipegemm $*"
  timeout "$t" "$PG" "$@"
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1

for s in 8x8x8 127x136x40 512x512x512 4095x4104x264 81920x256x256; do
  pgt 90 verify --shape $s $K5F16 $K5BF16 $K5OUT32
done
pgt 30 verify --shape 512x512x512 --kernel k5_ws_tma_wgmma_f16 --lda 516   # misaligned: refused
pgt 30 verify --shape 512x512x512 --kernel auto --lda 516                   # routed elsewhere
{ echo; echo "\$ timeout 200 pipegemm_gpu_tests --gtest_filter=K5*"; timeout 200 "$BUILD/tests/pipegemm_gpu_tests" --gtest_filter='K5*' --gtest_brief=1; echo "# exit $?"; } >> "$OUT/run.log" 2>&1
for s in 4096x4096x4096 6144x6144x6144 8192x8192x8192 16384x1024x4096 8192x28672x4096 4096x4096x256; do
  pgt 90 bench --shape $s $K5F16 --reps 100
  pgt 90 bench --shape $s $K5BF16 --reps 100
done
{ echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape 300x200x1000 (k5 f16, bf16)";
  timeout 120 compute-sanitizer --tool memcheck "$PG" verify --shape 300x200x1000 --kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_bf16_nocluster --no-peers 2>&1 | tail -12; echo "# exit $?"; } >> "$OUT/run.log" 2>&1
pgt 120 verify --shape 8192x8192x8192 $K5F16
pgt 120 verify --shape 8192x8192x8192 $K5BF16
