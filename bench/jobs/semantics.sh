# Issue 13 (the GEMM users call), session 6: the CPU tests and every GPU test (the semantics
# matrix of tests/gpu/test_gpu_semantics.cpp first), verify of k5's general form, k0 and the peers on
# large shapes, the epilogue's cost at 4096^3 (k5 plain beside k5's general form -- alpha only,
# bias, bias + ReLU, bias + GELU -- and cuBLASLt with its own epilogue beside each; --idle-ms 25),
# the fuzzer over the new dimensions, then the Python package.
gt pipegemm_unit_tests '-SassCli.*'   # SassCli needs the sm_80 code this 90a-only build lacks (CI runs it)
gt pipegemm_gpu_tests '*Semantics*'
gt pipegemm_gpu_tests '-*Semantics*'
for t in f16 bf16; do
  pg verify --shape 2000x3000x1000 --dtype $t --out-dtype $t --alpha 0.5 --beta 2 --bias col --act gelu_tanh \
     --kernel k5_${t}_128x256x64_s4 cublaslt_$t k0_${t}_128x128x16
  pg verify --shape 2000x3000x1000 --dtype $t --out-dtype $t --alpha 0.5 --beta 2 --bias col --act gelu_tanh --kernel auto
  pg verify --shape 1024x768x512 --dtype $t --out-dtype $t --batch 3 --broadcast b --bias row --act gelu_erf \
     --kernel k5_${t}_128x256x64_s4 k0_${t}_128x128x16
  pg verify --shape 1024x768x512 --dtype $t --out-dtype $t --batch 3 --broadcast a --d-layout col --beta 1 --c d --kernel auto
  pg verify --shape 777x1000x999 --dtype $t --out-dtype $t --layout NN --beta 1 --c d --kernel auto
done
for epi in "" "--alpha 0.5" "--bias col" "--bias col --act relu" "--bias col --act gelu_tanh"; do
  pg bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 --reps 50 --rounds 3 \
     --warmup 5 --idle-ms 25 $epi
done
pg fuzz --count 2000 --dtype f16,bf16,i8,f32 --seed 13
source bench/jobs/python.sh
