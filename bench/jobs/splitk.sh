# Split-K (issue 12): the GPU tests (K4SplitK first), then the decode suite with the split-K
# variants and k5 beside both cuBLAS peers (added by bench), same run, same buffers, back to back.
gt pipegemm_gpu_tests 'K4SplitK.*'
gt pipegemm_gpu_tests '-K4SplitK.*'
for t in f16 bf16; do
  pg bench --suite bench/suites/decode.txt --dtype $t --reps 20 --rounds 3 --warmup 3 \
     --kernel k4_${t}_16x64x64_s6_splitk k4_${t}_64x128x64_s4_splitk k5_${t}_128x256x64_s4 \
     --output "$OUT/decode_${t}.csv" --output "$OUT/decode_${t}.md"
done
