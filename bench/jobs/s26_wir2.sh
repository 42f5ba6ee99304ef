# Session 26: the weight-in-registers prototype with W staged by TMA in the empty ring (its first form's
# 4-byte global loads cost ~8 us of fixed start, s26_wir_scaling.sh), beside a same-bytes memcpy, and
# in the same call bench's k5 forms and cuBLASLt on the same shapes, back to back.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_wir2.sh   (.carry: the CLI)
{ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o "$OUT/wir" bench/micro/weight_in_registers.cu; echo "# nvcc exit $?"
  for shape in "81920 256" "327680 256" "131072 128" "40960 256"; do echo "\$ ./weight_in_registers $shape"; "$OUT/wir" $shape; echo "# exit $?"; done
  rm -f "$OUT/wir"; } >> "$OUT/run.log" 2>&1
pg bench --shape 81920x256x256 --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s4_b_resident k5_f16_128x256x64_s4 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/seed_b2b.md"
pg bench --shape 131072x256x128 --dtype f16 --out-dtype f16 --kernel auto k5_f16_128x256x64_s8_b_resident_k128 cublaslt_f16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/wide_b2b.md"
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
