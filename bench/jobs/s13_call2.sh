# Session 13, call 2: stream-K's head adds its parts through the idle ring (cp.async, then shared
# loads) instead of ld.cg into registers (call 1: stream-K 3% behind k5 at 4096^3); the part's
# threads no longer fence one by one. Tests, then the compute suite and int8 as in call 1.
# Run: scripts/gpu_session.sh bench/jobs/s13_call2.sh pipegemm_cli pipegemm_gpu_tests
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
