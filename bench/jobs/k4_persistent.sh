# Issue 5, session 2: k4 persistent (the ring runs across tiles) vs the one-tile-per-CTA k4,
# same config (256x128x64, 3 stages, group 8). GPU ladder tests (every registered k4 variant on
# the odd shapes), compute-sanitizer memcheck on an odd shape, then the benches.
gt pipegemm_gpu_tests 'GpuLadder.*'
{ echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape 1000x1000x1000 --kernel k4_f16_256x128x64_s3_persistent --kernel k4_f16_256x128x64_s3"
  compute-sanitizer --tool memcheck --print-limit 5 $PG verify --shape 1000x1000x1000 --kernel k4_f16_256x128x64_s3_persistent --kernel k4_f16_256x128x64_s3 2>&1 | tail -6; } >> "$OUT/run.log" 2>&1
pg verify --shape 4096x4096x4096 --kernel k4_f16_256x128x64_s3_persistent
pg verify --shape 81920x256x256 --kernel k4_f16_256x128x64_s3_persistent
pg verify --shape 4095x4097x264 --kernel k4_f16_256x128x64_s3_persistent
K4="--kernel k4_f16_256x128x64_s3_persistent --kernel k4_f16_256x128x64_s3 --kernel k4_seed_f32acc"
pg bench --shape 8192x8192x8192 $K4 --reps 40 --idle-ms 300
pg bench --shape 8192x8192x8192 $K4 --reps 40 --idle-ms 300
pg bench --shape 8192x8192x8192 $K4 --reps 40
pg bench --shape 4096x4096x4096 $K4 --reps 50 --idle-ms 300
pg bench --shape 81920x256x256 $K4 --reps 200 --idle-ms 300
pg bench --shape 6144x6144x6144 $K4 --reps 40 --idle-ms 300
