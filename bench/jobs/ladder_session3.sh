# Issue 5, session 2 final run on the committed tree: every rung now uses the A-reusing MMA
# order and the shared view helpers (k0..k4 refactor), k4 FP16/BF16/F16acc lead with
# 256x128x64/3 stages/group 8. All GPU tests; every rung x type verified on the large
# shapes; the ladder tables; k4 at 8192^3 in both protocols (sustained = back to back, burst =
# --idle-ms 300) with the seed kernel as the yardstick ("about 400"), three burst runs.
gt pipegemm_gpu_tests
for s in 512x512x512 4096x4096x4096 81920x256x256 4095x4097x255; do
  pg verify --shape $s --kernel all --dtype f16
  pg verify --shape $s --kernel all --dtype f16 --acc f16
  pg verify --shape $s --kernel all --dtype bf16 --out-dtype bf16
  pg verify --shape $s --kernel all --dtype i8 --acc i32 --out-dtype i32
  pg verify --shape $s --kernel all --dtype i8 --acc i32 --out-dtype f32
  pg verify --shape $s --kernel all --dtype f32 --out-dtype f32
done
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 200 > "$OUT/smi.log" 2>&1 &
SMI=$!
K4="--kernel k4_f16_256x128x64_s3 --kernel k4_f16_128x256x32_s4 --kernel k4_seed_f32acc"
for i in 1 2 3; do pg bench --shape 8192x8192x8192 $K4 --reps 40 --idle-ms 300; done
pg bench --shape 8192x8192x8192 $K4 --reps 40
pg bench --shape 8192x8192x8192 --kernel k4_bf16_256x128x64_s3 --kernel k4_f16acc_256x128x64_s3 --kernel k4_i8_128x256x64_s4 --reps 40 --idle-ms 300
pg bench --ladder --shape 4096x4096x4096 --dtype f16 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype f16 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype i8 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype i8 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype bf16 --reps 50
pg bench --ladder --shape 4096x4096x4096 --dtype f32 --reps 20
pg bench --ladder --shape 8192x8192x8192 --dtype f16 --reps 20 --idle-ms 300
kill $SMI
{ echo; echo "# nvidia-smi every 200 ms during the benches (timestamp, SM MHz, W, event reasons)"; cat "$OUT/smi.log"; } >> "$OUT/run.log"
