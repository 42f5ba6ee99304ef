# Session 10, call 2: the skinny family's first GPU run (issue 12: decode / thin problems).
#  1. GPU tests: Skinny* (both load forms, splits repeat bit for bit, epilogue + batch), the ladder's
#     and split-K's (the registry grew), memcheck on a split and an unaligned problem.
#  2. The decode suite (M = 1, 16, 128 of the LLM suite), FP16 and BF16 burst: skinny beside both
#     cuBLAS peers and auto (whose tune cache does not know skinny yet).
# Run: scripts/gpu_session.sh bench/jobs/s10_skinny.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*:GpuLadder*'
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for s in 7x1000x3000 13x777x1001; do
  echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape $s --kernel skinny_f16_16x32x256_w4" >> "$OUT/run.log"
  "$SAN" --tool memcheck --error-exitcode 9 "$PG" verify --shape $s --kernel skinny_f16_16x32x256_w4 --dtype f16 >> "$OUT/run.log" 2>&1
  echo "# exit $?" >> "$OUT/run.log"
done
mkdir -p /tmp/res
for t in f16 bf16; do
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto skinny_${t}_8x32x256_w4 \
     skinny_${t}_16x32x256_w4 skinny_${t}_32x32x128_w4 --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/decode_${t}_skinny.md --output /tmp/res/decode_${t}_skinny.csv
done
tar czf "$OUT/results.tar.gz" -C /tmp/res .
