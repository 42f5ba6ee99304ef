# Session 12, call 7: the GPU tests added this session -- k5's long-K bias paths (staged under the
# mainloop) and int8 with a C apart never reaching cuBLASLt.
# Run: scripts/gpu_session.sh bench/jobs/s12_call7.sh pipegemm_gpu_tests
gt pipegemm_gpu_tests 'GpuSemantics.Int8WithCApartNeverReachesCublasLt:GpuSemantics.K5EveryLayoutOnPartialTilesAndClusters'
