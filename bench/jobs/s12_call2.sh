# Session 12, call 2: k5's general epilogue with the bias staged by each consumer behind its own
# barrier (no 256-thread barrier: no lockstep), read as 16-byte shared loads, and scale + bias in
# one FFMA (the GELU takes v / 2) -- correctness (GPU tests, fuzz), then its cost at 4096^3.
# Run: scripts/gpu_session.sh bench/jobs/s12_call2.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5*:GpuSemantics.*'
pg verify --shape 1000x1048x1000 --kernel k5_f16_128x256x64_s4 --dtype f16 --bias col --act gelu_tanh --alpha 0.5
pg verify --shape 333x520x3000 --kernel k5_bf16_128x256x64_s4 --dtype bf16 --out-dtype bf16 --bias row --act gelu_tanh --beta 0.5
pg verify --shape 200x264x128 --kernel k5_f16_128x256x64_s4 --dtype f16 --bias col --bias-dtype f32 --act gelu_tanh
pg fuzz --count 500 --dtype f16,bf16 --seed 20261202
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_parts.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_parts_${t}.md"
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_${t} \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_cost_${t}_burst.md"
done
pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 cublaslt_f16 \
   --reps 50 --rounds 2 --output "$OUT/epilogue_cost_f16_b2b.md"
