# Session 12, call 4: the activation applied chunk by chunk just before each chunk's store (its
# MUFU work under the previous chunks' TMA stores) on top of call 3's bias staged under the
# mainloop -- correctness, SASS, then the cost at 4096^3 (burst: FP16, BF16; sustained: FP16).
# Run: scripts/gpu_session.sh bench/jobs/s12_call4.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5*:GpuSemantics.*'
pg verify --shape 1000x1048x1000 --kernel k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong k5_f16_f32out_128x256x64_s4 --dtype f16 --bias col --act gelu_tanh --alpha 0.5
pg verify --shape 333x520x3000 --kernel k5_bf16_128x256x64_s4 k5_bf16_64x256x64_s4_pingpong --dtype bf16 --out-dtype bf16 --bias row --act gelu_erf --beta 0.5
pg verify --shape 200x264x256 --kernel k5_f16_128x256x64_s4 --dtype f16 --bias col --bias-dtype f32 --act relu
pg fuzz --count 400 --dtype f16,bf16 --seed 20261204
for v in k5_f16_128x256x64_s4 k5_bf16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong; do pg sass --kernel $v --arch 90a --brief; done
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_${t} \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_cost_${t}_burst.md"
  pg bench --suite bench/suites/epilogue_parts.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_parts_${t}.md"
done
pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 \
   --reps 50 --rounds 2 --output "$OUT/epilogue_cost_f16_b2b.md"
