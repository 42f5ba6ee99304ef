# Issue 5, session 2 call 3: k4 with the N-inner MMA order (A fragment reused) in every rung,
# 256x128 tiles vs 128x256, at 8192^3; the seed kernel in the same runs as the yardstick the
# issue quotes ("about 400"). Two protocols, same process, same buffers:
#   sustained: back to back (the bench default);  burst: 300 ms idle before each block (--idle-ms).
# nvidia-smi samples clocks/power throughout (phase marks written by the job to run.log).
S=8192x8192x8192
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv,noheader -lms 100 > "$OUT/smi.log" 2>&1 &
SMI=$!
F16="--kernel k4_f16_256x128x64_s3 --kernel k4_f16_256x128x64_s4 --kernel k4_f16_256x128x32_s4 --kernel k4_f16_256x128x64_s3_g8 --kernel k4_f16_128x256x32_s4 --kernel k4_seed_f32acc"
echo "# phase sustained $(date +%H:%M:%S.%N)" >> "$OUT/run.log"
pg bench --shape $S $F16 --reps 40
echo "# phase burst $(date +%H:%M:%S.%N)" >> "$OUT/run.log"
pg bench --shape $S $F16 --reps 40 --idle-ms 300
echo "# phase others $(date +%H:%M:%S.%N)" >> "$OUT/run.log"
pg bench --shape $S --kernel k4_bf16_128x256x32_s4 --kernel k4_bf16_256x128x64_s3 --kernel k4_f16acc_128x256x32_s4 --kernel k4_f16acc_256x128x64_s3 --kernel k4_i8_128x256x64_s4 --kernel k4_i8_256x128x128_s3 --reps 40 --idle-ms 300
pg bench --shape 4096x4096x4096 $F16 --reps 40 --idle-ms 300
echo "# phase end $(date +%H:%M:%S.%N)" >> "$OUT/run.log"
kill $SMI
{ echo; echo "# nvidia-smi every 100 ms (timestamp, SM MHz, W, event reasons)"; cat "$OUT/smi.log"; } >> "$OUT/run.log"
gt pipegemm_gpu_tests 'GpuLadder.*'
