# Session 9, call 2 (issues 12, 14, 16):
#  1. k5 B-resident (`k5_*_128x256x64_s4_b_resident`: B loaded once per CTA and kept in smem, the
#     ring carries A alone; N <= 256, K <= 256): the k5 GPU tests (every k5 variant, the new
#     K5Verify.BResidentOnTallSkinnyShortKShapes), then the memory-bound suite beside the ring
#     form, k4 persistent, the seed kernel and both cuBLAS peers (% of the copy bandwidth measured
#     in the same run), FP16 and BF16, back to back and --idle-ms 25.
#  2. The traced build again (stamps no longer load the buffer's address and capacity: in call 1 the
#     traced k5 ran ~1.5x slower than untraced), the README's pictures: seed, k4, k4 persistent,
#     k5 and k5 B-resident on the seed shape; k5 on 4096^3, ping-pong on 4096x4096x256 (SVGs and
#     JSON in traces.tar.gz).
#  3. Ping-pong's tile order: 4096^3 with PIPEGEMM_K5_RASTER_GROUP 8 (the default for clusters of 2),
#     16, 32 beside the cooperative k5 (call 1's diagnose: ping-pong reads 1.99x the GEMM's bytes
#     from DRAM against 1.47x, tensor pipe 82% against 94%).
# Run: scripts/gpu_session.sh bench/jobs/s9_bresident_trace.sh pipegemm_cli pipegemm_gpu_tests
build_traced 8 &  # scripts/gpu_session.sh: build/trace beside the GPU work, pgt to run it
TRACE_PID=$!
gt pipegemm_gpu_tests 'K5*'
mkdir -p /tmp/res
MEMK="auto k5_%T_128x256x64_s4 k5_%T_128x256x64_s4_b_resident k4_%T_256x128x64_s3_persistent"
for t in f16 bf16; do
  ks=$(echo "$MEMK" | sed "s/%T/$t/g")
  seed=""; [ $t = f16 ] && seed=seed_f16_128x128x32_s3
  pg verify --shape 81920x256x256 --kernel $ks --dtype $t --out-dtype $t
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel $ks --reps 50 --rounds 3 \
     --output /tmp/res/memory_${t}_b2b.md --output /tmp/res/memory_${t}_b2b.csv
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel $ks $seed --reps 50 --rounds 3 --idle-ms 25 \
     --output /tmp/res/memory_${t}_idle.md --output /tmp/res/memory_${t}_idle.csv
done
for g in 8 16 32; do
  echo "# PIPEGEMM_K5_RASTER_GROUP=$g" >> "$OUT/run.log"
  PIPEGEMM_K5_RASTER_GROUP=$g pg bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_64x256x64_s4_pingpong k5_f16_128x256x64_s4 --reps 30 --rounds 3 --idle-ms 25
done
wait $TRACE_PID
TRACE_PICTURES_BUILT=1 source bench/jobs/trace_pictures.sh
# The traced build's own untraced timing of k5 (stamps compiled in, buffer not armed) against the
# normal build's: what compiled-in stamps cost when no buffer is armed.
pgt bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25 --no-peers
pg bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25 --no-peers
tar czf "$OUT/results.tar.gz" -C /tmp/res .
