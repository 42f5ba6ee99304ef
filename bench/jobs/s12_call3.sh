# Session 12, call 3: the bias staged under the mainloop (k_tile STAGES; ping-pong k_tile 0), so
# the epilogue only reads it; the SFU's throughput (bench/micro/sfu_throughput.cu) -- is the
# GELU's tanh.approx what the epilogue waits for? Correctness first, then the cost at 4096^3.
# Run: scripts/gpu_session.sh bench/jobs/s12_call3.sh pipegemm_cli pipegemm_gpu_tests
{ echo; echo "\$ nvcc -O3 -arch=sm_90a bench/micro/sfu_throughput.cu && ./sfu_throughput"
  nvcc -O3 -arch=sm_90a -o /tmp/sfu_throughput bench/micro/sfu_throughput.cu && /tmp/sfu_throughput; echo "# exit $?"; } >> "$OUT/run.log" 2>&1
gt pipegemm_gpu_tests 'K5*:GpuSemantics.*'
pg verify --shape 1000x1048x1000 --kernel k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong --dtype f16 --bias col --act gelu_tanh --alpha 0.5
pg verify --shape 333x520x3000 --kernel k5_bf16_128x256x64_s4 k5_bf16_64x256x64_s4_pingpong --dtype bf16 --out-dtype bf16 --bias row --act gelu_tanh --beta 0.5
pg verify --shape 200x264x256 --kernel k5_f16_128x256x64_s4 --dtype f16 --bias col --bias-dtype f32 --act gelu_tanh
pg verify --shape 130x264x320 --kernel k5_f16_128x256x64_s4 --dtype f16 --bias row --act relu
pg fuzz --count 400 --dtype f16,bf16 --seed 20261203
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_${t} \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_cost_${t}_burst.md"
  pg bench --suite bench/suites/epilogue_parts.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epilogue_parts_${t}.md"
done
