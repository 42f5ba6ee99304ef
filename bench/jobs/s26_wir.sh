# (A record of what ran in session 26: the prototype at that commit compiled alone; today it also needs
# -I src src/kernels/k5_tensor_map.cpp src/core/types.cpp, as bench/jobs/s26_wir2.sh does.)
# Session 26: the register-resident weight measured before it becomes a registered form
# (bench/micro/weight_in_registers.cu, docs/hopper.md "Next for the memory-bound shapes"): the
# prototype at ring depths 12/16/22 beside a memcpy of the same bytes, on the seed shape and on
# 131072x256x128 (every 7th row checked against the CPU); then, in the same call and on the same
# card, bench's auto, the B-resident k5 forms and cuBLASLt on both shapes, back to back (the
# prototype's protocol), for the comparison.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_wir.sh   (.carry: the CLI)
{ echo; echo "\$ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o weight_in_registers bench/micro/weight_in_registers.cu"
  nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o "$OUT/wir" bench/micro/weight_in_registers.cu; echo "# exit $?"
  for shape in "81920 256" "131072 128"; do echo "\$ ./weight_in_registers $shape"; "$OUT/wir" $shape; echo "# exit $?"; done
  rm -f "$OUT/wir"; } >> "$OUT/run.log" 2>&1
pg bench --shape 81920x256x256 --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s4_b_resident k5_f16_128x256x64_s5_b_resident_k256 k5_f16_128x256x64_s4 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/seed_b2b.md"
pg bench --shape 131072x256x128 --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s8_b_resident_k128 k5_f16_128x256x64_s4 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/wide_b2b.md"
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
