# Session 9, call 3 (issues 12, 14, 16):
#  1. The memory-bound suite in BF16 (call 2's BF16 lines named a k4 persistent BF16 variant that
#     does not exist), k5 ring and B-resident beside auto and both peers, back to back.
#  2. Grid size: PIPEGEMM_K5_MAX_CTAS=128 (every persistent CTA the same number of tiles where the
#     tile count is a multiple of 128: 81920x256x256 has 640 tiles = 5 x 128, 4.85 x 132; 4096^3
#     512 = 4 x 128) against the default 132, on the memory suite and the compute suite (FP16,
#     --idle-ms 25).
#  3. fuzz with the B-resident variants in (they refuse N > 256 or K > 256: counted as refusals).
#  4. The traced build again (stamps hold the CTA and SM; k5 drops stage_released), the pictures.
# Run: scripts/gpu_session.sh bench/jobs/s9_grid_fuzz_trace.sh pipegemm_cli
build_traced 8 &  # scripts/gpu_session.sh: build/trace beside the GPU work, pgt to run it
TRACE_PID=$!
mkdir -p /tmp/res
pg verify --shape 81920x256x256 --kernel k5_bf16_128x256x64_s4 k5_bf16_128x256x64_s4_b_resident --dtype bf16 --out-dtype bf16
pg bench --suite bench/suites/memory.txt --dtype bf16 --out-dtype bf16 --kernel auto k5_bf16_128x256x64_s4 k5_bf16_128x256x64_s4_b_resident \
   --reps 50 --rounds 3 --output /tmp/res/memory_bf16_b2b.md --output /tmp/res/memory_bf16_b2b.csv
for n in 132 128; do
  echo "# PIPEGEMM_K5_MAX_CTAS=$n" >> "$OUT/run.log"
  PIPEGEMM_K5_MAX_CTAS=$n pg bench --suite bench/suites/memory.txt --dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_b_resident \
     --reps 50 --rounds 3 --idle-ms 25 --output /tmp/res/memory_f16_ctas$n.md
  PIPEGEMM_K5_MAX_CTAS=$n pg bench --suite bench/suites/compute.txt --dtype f16 --kernel k5_f16_128x256x64_s4 \
     --reps 20 --rounds 2 --idle-ms 25 --output /tmp/res/compute_f16_ctas$n.md
done
pg fuzz --count 500 --dtype f16,bf16 --seed 20261203
wait $TRACE_PID
TRACE_PICTURES_BUILT=1 source bench/jobs/trace_pictures.sh
tar czf "$OUT/results.tar.gz" -C /tmp/res .
