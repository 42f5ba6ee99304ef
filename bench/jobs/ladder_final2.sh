# Issue 5, session 2, the committed tree: all GPU tests; every rung x type verified on the
# issue's large shapes; memcheck on odd shapes; k4 at 8192^3 in both protocols (sustained = back
# to back, burst = --idle-ms 300) beside the seed kernel (the "about 400") and cuBLAS;
# the ladder tables.
gt pipegemm_gpu_tests
for s in 512x512x512 4096x4096x4096 81920x256x256 4095x4097x255; do verify_every_type $s; done
for s in 127x129x40 1000x1000x1000; do
  { echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape $s --family k1_smem_single --family ... (k1..k4 f16)"
    for f in k1_smem_single k2_dbuf_ldg k3_dbuf_cp_async k4_multistage; do
      compute-sanitizer --tool memcheck --print-limit 5 $PG verify --shape $s --family $f --dtype f16 --no-peers 2>&1 | grep -E "PASS|FAIL|refused|ERROR SUMMARY"
    done; } >> "$OUT/run.log" 2>&1
done
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 200 > "$OUT/smi.log" 2>&1 &
SMI=$!
K4="--kernel k4_f16_256x128x64_s3 --kernel k4_f16_256x128x64_s3_persistent --kernel k4_f16_128x256x32_s4 --kernel k4_seed_f32acc"
for i in 1 2; do pg bench --shape 8192x8192x8192 $K4 --reps 40 --idle-ms 300; done
pg bench --shape 8192x8192x8192 $K4 --reps 40
pg bench --shape 8192x8192x8192 --kernel k4_bf16_256x128x64_s3 --kernel k4_f16acc_256x128x64_s3 --kernel k4_i8_128x256x64_s4 --reps 40 --idle-ms 300
pg bench --shape 81920x256x256 $K4 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype f16 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype f16 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype i8 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype i8 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype bf16 --reps 50
pg bench --ladder --shape 4096x4096x4096 --dtype f32 --reps 20
pg bench --ladder --shape 4096x4096x4096 --dtype f32 --reps 20 --idle-ms 300
pg bench --ladder --shape 8192x8192x8192 --dtype f16 --reps 20 --idle-ms 300
kill $SMI
{ echo; echo "# nvidia-smi every 200 ms during the benches (timestamp, SM MHz, W, event reasons)"; cat "$OUT/smi.log"; } >> "$OUT/run.log"
