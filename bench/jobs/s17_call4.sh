# Session 17, call 4: (1) the short-K configs at long K ($PIPEGEMM_K5_SHORT_K: s8 -> 3 stages and 4
# epilogue buffers a consumer, 16-bit -> deferred stores; both without clusters), at stagger 0-2,
# beside the default (4 stages, 2 buffers, clusters, stagger 2) -- burst; (2) bias + GELU at stagger 3
# against the default 2 (BF16, burst, alternating); (3) what call 3 lost (its run.log did not come
# back: 9 files): the bf16 fuzz and s8 in both protocols. Single shapes without --output (8 files back).
# Run: scripts/gpu_session.sh bench/jobs/s17_call4.sh pipegemm_cli
i8="--dtype i8 --acc i32 --out-dtype i32 --kernel k5_i8_128x256x128_s4 --reps 30 --rounds 2"
for run in 1 2; do
  unset PIPEGEMM_K5_SHORT_K PIPEGEMM_K5_STAGGER; note "defaults"
  pg bench --shape 4096x4096x4096 $i8 --idle-ms 25
  export PIPEGEMM_K5_SHORT_K=1000000
  for g in 0 1 2; do
    export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_SHORT_K=1000000 PIPEGEMM_K5_STAGGER=$g"
    pg bench --shape 4096x4096x4096 $i8 --idle-ms 25
  done
done
unset PIPEGEMM_K5_SHORT_K PIPEGEMM_K5_STAGGER; note "defaults"
for s in 4096x4096x4096 8192x8192x8192; do pg bench --shape $s $i8; done
pg bench --shape 8192x8192x8192 $i8 --idle-ms 25
for t in f16 bf16; do
  for s in 4096x4096x4096 8192x8192x8192; do
    unset PIPEGEMM_K5_SHORT_K PIPEGEMM_K5_STAGGER; note "defaults"
    pg bench --shape $s --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25
    export PIPEGEMM_K5_SHORT_K=1000000
    for g in 0 2; do
      export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_SHORT_K=1000000 PIPEGEMM_K5_STAGGER=$g"
      pg bench --shape $s --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 --reps 30 --rounds 2 --idle-ms 25
    done
  done
done
unset PIPEGEMM_K5_SHORT_K
for g in 3 2 3 2; do
  export PIPEGEMM_K5_STAGGER=$g; note "PIPEGEMM_K5_STAGGER=$g"
  pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 --kernel k5_bf16_128x256x64_s4 \
     --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_bf16_stagger${g}_$RANDOM.md"
done
unset PIPEGEMM_K5_STAGGER
pg fuzz --count 1000 --dtype bf16 --seed 20261218
