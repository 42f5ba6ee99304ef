# Issue 13, session 7, first call: k5's general form takes MN-major operands (NN, NT, TT read
# transposed by wgmma from the TMA ring) and stages the tile's bias in shared memory. The GPU
# tests (semantics matrix, the new k5 layout test, the k5 and verify suites), k5's SASS proof,
# large verifies of each layout, the epilogue suite (k5 beside cuBLASLt with its own epilogue,
# both protocols), a fuzz round.
gt pipegemm_gpu_tests '*Semantics*:K5*:GpuVerify*:GpuRefusal*'
pg sass --kernel k5_f16_128x256x64_s4 k5_bf16_128x256x64_s4 k5_f16_f32out_128x256x64_s4 k5_bf16_f32out_128x256x64_s4 --brief
for t in f16 bf16; do
  for l in NN NT TT; do
    pg verify --shape 2000x3000x1000 --dtype $t --out-dtype $t --layout $l --kernel k5_${t}_128x256x64_s4 auto
  done
  pg verify --shape 1000x2040x4100 --dtype $t --out-dtype $t --layout NT --alpha 0.5 --beta 2 --bias col --act gelu_tanh \
     --kernel k5_${t}_128x256x64_s4
done
pg bench --suite bench/suites/epilogue.txt --dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 --reps 30 --rounds 3 --idle-ms 25
pg bench --suite bench/suites/epilogue.txt --dtype bf16 --kernel k5_bf16_128x256x64_s4 cublaslt_bf16 --reps 30 --rounds 3
pg fuzz --count 1000 --dtype f16,bf16,i8,f32 --seed 71
