# Lead's integration run: foundation + planner GPU tests, the seed experiment, the seed bench.
gt pipegemm_gpu_tests 'GpuVerify*:GpuRefusal*:GpuOccupancy*:GpuPlanner*:*Planner*'
pg
pg plan --kernel k4_seed_f32acc
pg verify --shape 4096x4096x4096 --kernel k4_seed_f16acc --kernel k4_seed_f32acc
pg verify --shape 4096x4096x4096 --dtype bf16 --kernel auto
