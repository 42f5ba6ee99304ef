# Session 16, call 7: the GPU tests that walk every registered variant, now with the 64x64 k0
# (occupancy against the planner's prediction, the ladder on every shape, verify, semantics, refusals).
# Run: scripts/gpu_session.sh bench/jobs/s16_call7.sh pipegemm_gpu_tests
gt pipegemm_gpu_tests "GpuPlanner.*:GpuOccupancy.*:GpuLadder.*:GpuVerify.*:GpuRefusal.*:GpuSemantics.*"
