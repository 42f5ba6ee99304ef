# Session 29: the deferred chunk stores in halves as the default from K = 1024 (k5 launcher,
# kChunkHalvesMinK; call 2 on an H100: the plain BF16 GEMM 0.7-2% faster at K >= 4096, 6.5% slower at
# K = 256, where the halves spill into the epilogue). (1) on an H200 first the queued
# weight-in-registers run (s27_wir3.sh); (2) where the threshold sits: bench/suites/k_sweep.txt
# (4096x4096, K = 256..4096) with halves forced on / off ($PIPEGEMM_K5_CHUNK_PARTS=2 / 1), BF16 and
# FP16, alternating processes, burst; the compute suite with the default against parts 1;
# (3) the general form deferred again ($PIPEGEMM_K5_GENERAL_DEFER=1, now in halves at K = 4096)
# against its stores in the epilogue: epilogue_cost, k5 alone, alternating; (4) the k5 and
# semantics GPU tests and a fuzz with the defaults.
# Read: $OUT/ksweep_*.md, $OUT/compute_*_parts*.md; semantics_collate.py --group 'gdefer\d' $OUT/epi_*_gdefer*_run*.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s29_call3.sh   (carry .carry: both binaries gzipped)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s27_wir3.sh
fi
for i in 1 2; do
  for t in bf16 f16; do
    for p in 1 2; do
      in_time 330 "k sweep $t parts $p round $i" || continue
      PIPEGEMM_K5_CHUNK_PARTS=$p pg bench --suite bench/suites/k_sweep.txt --dtype $t --out-dtype $t \
         --kernel k5_${t}_128x256x64_s4 --no-peers --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/ksweep_${t}_parts${p}_$i.md"
    done
  done
  for p in default 1; do
    in_time 360 "compute parts $p round $i" || continue
    if [ $p = default ]; then unset PIPEGEMM_K5_CHUNK_PARTS; else export PIPEGEMM_K5_CHUNK_PARTS=$p; fi
    pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
       --no-peers --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_bf16_parts${p}_$i.md"
  done
  unset PIPEGEMM_K5_CHUNK_PARTS
done
for i in 1 2; do
  in_time 420 "general defer round $i" || continue
  for d in 0 1; do
    PIPEGEMM_K5_GENERAL_DEFER=$d EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" epilogue_cost "gdefer$d" "$i" 1
  done
done
in_time 470 "GPU tests" && gt pipegemm_gpu_tests 'K5*:GpuSemantics.K5*'
in_time 520 "fuzz" && fuzz_types 150 40 f16:2931 bf16:2932
note "done at $(( $(date +%s) - t0 ))s"
