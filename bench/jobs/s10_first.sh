# Session 10's first call (prepared in session 9, not yet run):
#  0. (first) ping-pong's shared-memory question through diagnose --metric, below.
#  1. issue 14's last item: diagnose (as fixed in session 8) on the seed kernel and k5 at 8192^3 and on
#     the seed shape, and the three teaching variants at 4096^3 (GpuDiagnose), text and JSON.
#  2. issue 12: the memory-bound suite with the suite report's new %copyBW column (the device copy
#     measured beside each shape), FP16 and BF16 burst; the packed k5 against both cuBLAS peers on
#     the unaligned shapes of the random suite it takes (odd K, odd leading dimensions), so a tune
#     can make it an auto candidate. (Fuzz 10,000 per type: bench/jobs/s10_fuzz.sh, a call of its own.)
# Run: scripts/gpu_session.sh bench/jobs/s10_first.sh pipegemm_cli pipegemm_gpu_tests
for k in seed_f16_128x128x32_s3 k5_f16_128x256x64_s4; do
  for s in 81920x256x256 8192x8192x8192; do
    pg diagnose --kernel $k --shape $s --dtype f16
    pg diagnose --kernel $k --shape $s --dtype f16 --json
  done
done
gt pipegemm_gpu_tests 'GpuDiagnose.*'
# Is ping-pong bound by shared memory (docs/hopper.md's hypothesis)? Both schedules, the smem data
# banks and the L1TEX unit's throughput beside the rules' own counters.
for k in k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong; do
  pg diagnose --kernel $k --shape 4096x4096x4096 --dtype f16 \
     --metric l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed \
     --metric l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed \
     --metric l1tex__throughput.avg.pct_of_peak_sustained_elapsed \
     --metric lts__t_sectors.avg.pct_of_peak_sustained_elapsed
done
mkdir -p /tmp/res
for t in f16 bf16; do
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto k5_${t}_128x256x64_s4 \
     --reps 50 --rounds 3 --idle-ms 25 --output /tmp/res/memory_${t}_idle.md --output /tmp/res/memory_${t}_idle.csv
done
for s in 4095x4097x255 1000x1001x1000 2048x2048x2049 8191x4096x4095; do
  pg bench --shape $s --dtype f16 --kernel k5_f16_128x256x64_s4_packed --reps 30 --rounds 3 --idle-ms 25
done
tar czf "$OUT/results.tar.gz" -C /tmp/res .
