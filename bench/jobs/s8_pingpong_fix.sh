# Session 8, call 3 (the device budget's last minutes): ping-pong with the consumers' turn
# handoff -- verify (the shapes that faulted in call 2), then the compute suite and the
# epilogue's cost, cooperative beside ping-pong and the best cuBLAS, burst protocol.
gt pipegemm_gpu_tests 'K5Verify.Fp16*:K5Verify.Int8*'
pg verify --shape 4095x4104x264 --dtype f16 --kernel k5_f16_64x256x64_s4_pingpong
pg verify --shape 1000x2040x4100 --dtype bf16 --layout TT --bias row --act gelu_tanh --kernel k5_bf16_64x256x64_s4_pingpong
pg bench --suite bench/suites/compute.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong --reps 20 --rounds 2 --idle-ms 25
pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong --reps 20 --rounds 2 --idle-ms 25
