# Session 26 (next: an H200): the weight-in-registers prototype (bench/micro/weight_in_registers.cu:
# W staged by TMA in the ring's last slots, then held in registers; rings of 12/16/22 stages) on the
# memory-bound suite's four shapes beside a memcpy of the same bytes, and in the same call bench's
# auto, the B-resident k5 forms and cuBLASLt on the same shapes, back to back (the prototype's protocol).
# It decides whether the form gets built (docs/hopper.md, "Next for the memory-bound shapes").
# (Ran on an H100 in call 7 with the previous prototype: N = 256 only, W at the ring's start.)
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_wir2.sh   (.carry: the CLI)
{ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -o "$OUT/wir" bench/micro/weight_in_registers.cu \
    src/kernels/k5_tensor_map.cpp src/core/types.cpp; echo "# nvcc exit $?"
  for shape in "81920 256 256" "131072 256 128" "65536 128 128" "32768 128 512" "327680 256 256"; do
    echo "\$ ./weight_in_registers $shape"; "$OUT/wir" $shape; echo "# exit $?"; done
  rm -f "$OUT/wir"; } >> "$OUT/run.log" 2>&1
pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s4_b_resident k5_f16_128x256x64_s8_b_resident_k128 k5_f16_128x128x64_s10_b_resident_k128 k5_f16_128x128x64_s6 k5_f16_128x256x64_s4 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/memory_b2b.md"
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
