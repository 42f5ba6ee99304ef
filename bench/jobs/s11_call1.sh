# Session 11, call 1: the skinny family's first GPU run (issue 12: decode / thin problems).
#  1. GPU tests: Skinny* (both load forms, splits repeat bit for bit, epilogue + batch), split-K's
#     and the ladder's (the registry grew); memcheck on a split and an unaligned problem.
#  2. The decode suite (M = 1, 16, 128 of the LLM suite), FP16 and BF16 burst (--idle-ms 25):
#     skinny beside both cuBLAS peers and auto as shipped; an M sweep and thin-N shapes.
#  3. tune of the decode suite with skinny among the candidates, then auto again with that cache.
# Run: scripts/gpu_session.sh bench/jobs/s11_call1.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*:GpuLadder*'
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for s in 7x1000x3000 13x777x1001 1x4096x4096; do
  echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape $s --kernel skinny_f16_16x32x256_w4" >> "$OUT/run.log"
  "$SAN" --tool memcheck --error-exitcode 9 "$PG" verify --shape $s --kernel skinny_f16_16x32x256_w4 --dtype f16 >> "$OUT/run.log" 2>&1
  echo "# exit $?" >> "$OUT/run.log"
done
mkdir -p /tmp/res
SK="skinny_f16_8x32x256_w4 skinny_f16_16x32x256_w4 skinny_f16_32x32x128_w4 skinny_f16_8x64x256_w4 skinny_f16_8x32x512_w8"
for t in f16 bf16; do
  ks=$SK; [ $t = bf16 ] && ks="skinny_bf16_8x32x256_w4 skinny_bf16_16x32x256_w4 skinny_bf16_32x32x128_w4"
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto $ks --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/decode_${t}_skinny.md --output /tmp/res/decode_${t}_skinny.csv
done
pg bench --shape 2:32:6x4096x4096 --dtype f16 --kernel $SK k4_f16_16x64x64_s6_splitk --reps 50 --rounds 3 --idle-ms 25
pg bench --shape 8192x8:32:8x8192 --dtype f16 --kernel $SK --reps 50 --rounds 3 --idle-ms 25
pg bench --shape 1x4097x4099 --shape 16x4096x4095 --dtype f16 --kernel auto $SK --reps 50 --rounds 3 --idle-ms 25
TABLE=$PWD/$BUILD/h200_decode.json
for t in f16 bf16; do pg tune --suite bench/suites/decode.txt --dtype $t --output "$TABLE" --force; done
cp "$TABLE" /tmp/res/h200_decode.json
export PIPEGEMM_TUNE_CACHE=$TABLE
for t in f16 bf16; do
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/decode_${t}_auto_tuned.md --output /tmp/res/decode_${t}_auto_tuned.csv
done
tar czf "$OUT/results.tar.gz" -C /tmp/res .
