# Session 30: the 128x192 ping-pong against the 128x256 tile and both cuBLAS peers on large shapes with
# whole columns of tiles for both (bench/jobs/s30_peak_even.txt), burst, both types -- where, if
# anywhere, the hidden epilogue beats cuBLAS. Read: %cuBLAS of $OUT/peak_even_*.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_call7.sh   (carry .carry)
for t in bf16 f16; do
  in_time 400 "peak $t" || continue
  pg bench --suite bench/jobs/s30_peak_even.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     k5_${t}_128x192x64_s4_pingpong cublas_$t cublaslt_$t --reps 20 --rounds 2 --warmup 3 --idle-ms 25 \
     --output "$OUT/peak_even_${t}_burst.md"
done
note "done at $(( $(date +%s) - t0 ))s"
