# Issue 5 acceptance, session 1 (sourced by scripts/gpu_session.sh; gt/pg log to $OUT/run.log).
# Most important first (a session that runs out of time still returns its log so far):
# every rung x data type on the odd shapes and 512^3 (gtest), the 8192^3 target, the ladder
# tables, then the big shapes through the CLI (fresh inputs, poisoned D, every element).
gt pipegemm_gpu_tests 'GpuLadder.*'
pg bench --shape 8192x8192x8192 --kernel k4_f16_128x256x32_s4 --kernel k4_f16_128x256x64_s3 --kernel k4_seed_f32acc --reps 30
pg bench --ladder --shape 4096x4096x4096 --dtype f16 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype f16 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype i8 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype i8 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype bf16 --reps 50
pg bench --ladder --shape 4096x4096x4096 --dtype f32 --reps 20
pg list --family k4_multistage
for t in f16 bf16 i8 f32; do
  pg verify --shape 4096x4096x4096 --kernel all --dtype $t
  pg verify --shape 81920x256x256 --kernel all --dtype $t
  pg verify --shape 4095x4097x255 --kernel all --dtype $t
done
pg verify --shape 4095x4097x255 --kernel auto --dtype f16
pg verify --shape 4096x4096x4096 --kernel all --dtype f16 --acc f16
pg verify --shape 4096x4096x4096 --kernel all --dtype i8 --out-dtype f32
