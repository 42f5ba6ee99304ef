# The final tree's GPU tests (the device minutes left allowed this call only).
gt pipegemm_gpu_tests
