# Session 13, call 3: stream-K walks each range backwards (pipeline/stream_k.cuh): a unit's parts
# are their workers' first segments and its finish (the segment with its last k_tile) the
# finisher's last, so no finish waits -- forwards (calls 1-2) a range shorter than a unit ended
# with a part its finisher waited almost a unit for (stream-K 3% behind k5 at 4096^3).
# Run: scripts/gpu_session.sh bench/jobs/s13_call3.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5StreamK.*:K5Verify.*'
gt pipegemm_gpu_tests 'GpuSemantics.K5EveryLayoutOnPartialTilesAndClusters'
for t in f16 bf16; do
  pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 k5_${t}_128x256x64_s4_streamk \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/compute_${t}_streamk_burst.md"
done
for s in 4096x4096x4096 8192x8192x8192; do
  pg bench --shape $s --dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 k5_i8_128x256x128_s4_streamk \
     --reps 30 --rounds 2 --idle-ms 25
done
