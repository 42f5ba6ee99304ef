# The house change, second call: the GPU tests that found and now check the k5 fix (D padding),
# every variant verified on odd and large shapes in every type, the SASS verdicts, the plan, and
# timings beside both cuBLAS peers (cublasGemmEx and cuBLASLt's timed best). The k5 SASS differs
# from before in its tile-order arithmetic (bench/results/2026-12-01_sass_diff_house.txt), so its
# ratios to cuBLAS must stay those of the earlier logs.
gt pipegemm_gpu_tests "GpuFuzz*:K5*"
for s in 127x129x40 4095x4097x264 81920x256x256; do verify_every_type $s; done
pg verify --shape 4096x4096x4096 --kernel all --dtype f16
pg verify --shape 4095x4097x255 --kernel auto --dtype f16
pg sass --arch all --brief
for s in 4096x4096x4096 8192x8192x8192 4096x4096x256 1024x1024x1024; do
  pg bench --shape $s --kernel k5_f16_128x256x64_s4 --kernel k4_f16_256x128x64_s3 --kernel cublaslt_f16 --reps 40
  pg bench --shape $s --kernel k5_bf16_128x256x64_s4 --kernel cublaslt_bf16 --reps 40
done
pg bench --shape 81920x256x256 --kernel k5_f16_128x256x64_s4 --kernel k4_f16_256x128x64_s3_persistent --kernel seed_f16_128x128x32_s3 --kernel cublaslt_f16 --reps 100
