# Issue 2 acceptance: GPU tests, the seed experiment, verify on the three shapes, bench.
gt pipegemm_gpu_tests
pg
pg verify --shape 512x512x512 --kernel k4_seed_f16acc --kernel k4_seed_f32acc
pg verify --shape 81920x256x256 --kernel k4_seed_f16acc --kernel k4_seed_f32acc
pg verify --shape 4096x4096x4096 --kernel k4_seed_f16acc --kernel k4_seed_f32acc
pg verify --shape 4096x4096x4096 --kernel k4_seed_f16acc --acc f16 --json
pg bench --shape 81920x256x256 --kernel k4_seed_f16acc --kernel k4_seed_f32acc --reps 200
pg bench --shape 4096x4096x4096 --kernel k4_seed_f16acc --kernel k4_seed_f32acc
pg bench --shape 8192x8192x8192 --kernel k4_seed_f32acc --reps 40
