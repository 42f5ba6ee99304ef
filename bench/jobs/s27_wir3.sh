# Session 27: the weight-in-registers prototype (bench/micro/weight_in_registers.cu) on the memory-bound
# suite's shapes (+ 327680x256x256), now also with A's DRAM stream taken away ("A from L2": every tile
# reads the same tile of A), which says whether the consumers and D's stores or A's bytes in flight
# set its pace. Where the CLI was built (on an H200: the call builds it), bench's auto, the B-resident
# k5 forms and cuBLASLt on the same shapes, back to back, as in s26_wir2.sh.
# Run (one command for either card):
#   if nvidia-smi -L | grep -q H200; then scripts/gpu_session.sh bench/jobs/s27_wir3.sh pipegemm_cli;
#   else PIPEGEMM_PREBUILT=.none scripts/gpu_session.sh bench/jobs/s27_wir3.sh; fi      (carry .deps)
{ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -o "$OUT/wir" bench/micro/weight_in_registers.cu \
    src/kernels/k5_tensor_map.cpp src/core/types.cpp; echo "# nvcc exit $?"
  for shape in "81920 256 256" "131072 256 128" "65536 128 128" "32768 128 512" "327680 256 256"; do
    echo "\$ ./weight_in_registers $shape"; "$OUT/wir" $shape; echo "# exit $?"; done
  rm -f "$OUT/wir"; } >> "$OUT/run.log" 2>&1
if [ -x "$PG" ]; then
  pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s4_b_resident k5_f16_128x256x64_s8_b_resident_k128 k5_f16_128x128x64_s10_b_resident_k128 k5_f16_128x128x64_s6 k5_f16_128x256x64_s4 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/memory_b2b.md"
fi
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
