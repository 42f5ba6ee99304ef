# Session 25: tiny problems where auto's pick trails cuBLASLt by about 1 us (1x252x8: skinny 3.8 us,
# cuBLASLt 2.8, H100 call 7). Is it the kernel or the launch? The same bench with PDL on and off
# ($PIPEGEMM_PDL=0), and ncu's kernel durations of one launch each.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_tiny_launch.sh
K="skinny_bf16_8x32x256_w4 k0_bf16_64x64x16 cublas_bf16 cublaslt_bf16"
for s in 1x252x8 41x1991x1 127x260x8; do
  pg bench --shape $s --dtype bf16 --out-dtype bf16 --kernel $K --reps 60 --rounds 3
  PIPEGEMM_PDL=0 pg bench --shape $s --dtype bf16 --out-dtype bf16 --kernel $K --reps 60 --rounds 3
done
for k in $K; do
  in_time 200 "ncu $k" || continue
  { echo "\$ ncu --metrics gpu__time_duration.sum pipegemm bench --shape 1x252x8 --kernel $k"
    timeout 60 ncu --metrics gpu__time_duration.sum --launch-count 3 "$PG" bench --shape 1x252x8 --dtype bf16 \
      --out-dtype bf16 --kernel $k --reps 1 --rounds 1 --warmup 0 2>&1 | grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" | head -12
    echo "# exit $?"; } >> "$OUT/run.log" 2>&1
done
note "done at $(( $(date +%s) - t0 ))s"
