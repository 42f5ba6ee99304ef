# Session 17, call 5: the short-K configs at every K, now with the clusters of the main config when
# K >= 2048 ($PIPEGEMM_K5_SHORT_K=1000000: 16-bit D -> deferred stores, the tile written out under the
# next tile's wgmma), against the defaults: the compute suite, FP16 and BF16, burst, alternating; the
# GPU tests of the k5 kernels and the semantics, and fuzz, under the same setting.
# Run: scripts/gpu_session.sh bench/jobs/s17_call5.sh pipegemm_cli pipegemm_gpu_tests
for t in f16 bf16; do
  for v in default deferred; do
    if [ $v = deferred ]; then export PIPEGEMM_K5_SHORT_K=1000000; else unset PIPEGEMM_K5_SHORT_K; fi; note "$v"
    pg bench --suite bench/suites/compute.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
       --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_${t}_${v}.md"
  done
done
export PIPEGEMM_K5_SHORT_K=1000000; note "PIPEGEMM_K5_SHORT_K=1000000"
gt pipegemm_gpu_tests "K5*:GpuSemantics.*:GpuVerify.*"
pg fuzz --count 500 --dtype f16,bf16 --seed 20261219
