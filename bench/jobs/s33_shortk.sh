# Session 33, call 2: shortk rewritten for instructions a thread (mma.sync on the zero-padded K, 16-bit
# tiles by predicated element loads, explicit 16-byte row stores; docs/shortk.md), 32x256 and 64x128, beside session 32's
# FFMA form, the CLI of 208a07d (pgp: .carry/prev), processes alternating, same shapes and peers.
# (1) its GPU tests (and skinny's: it shares the MMA alias now), verify of large misaligned tiny-K
# shapes in the three type sets; (2) the held-out tiny-K suite, new then old, each type; (3) the sweep
# (K 1..16 at 4096x8192, rows in and off 16 bytes) and the tiny grids, new then old; (4) fuzz 300 a
# type; (5) shortk opted into auto, the tiny-K suite tuned into a copy of the card's table, auto over
# the held-out tiny-K suite with it; (6) memcheck of the shortk GPU tests, ncu of the new kernel at
# 4096x8192x2 and 4096x8194x2, auto over the held-out random suite -- by value, as the call's time allows.
# On an H200 the H200 queue's head runs instead (s30_h200.sh, ~9 minutes): the criteria name that card.
# (Ran as call 1 with pgp defined here, its log lines "pipegemm(208a07d)"; pgp is gpu_session.sh's now.)
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s33_shortk.sh
#      (carry .carry/pipegemm.gz, .carry/tests, .carry/prev: CI's builds of the new commit and of 208a07d)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s30_h200.sh
  return 0
fi
# W ("_64x128x16" or ""): the second config where this build has it (ae10d84's has 32x256 only).
W=$("$PG" list 2>/dev/null | grep -q shortk_f16_64x128x16 && echo _64x128x16)
gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*:Skinny*'
for t in "f16" "bf16 --out-dtype bf16" "bf16 --out-dtype f32"; do
  k=${t%% *}; o=$([ "${t##* }" = f32 ] && echo ${k}_f32out || echo $k)
  pg verify --shape 5801x12404x6 --kernel shortk_${o}_32x256x16 --dtype $t
  pg verify --shape 3754x10117x5 --kernel shortk_${o}_32x256x16 --dtype $t --offset 1 --bias row --act relu
  pg verify --shape 777x1001x13 --kernel shortk_${o}_32x256x16 --dtype $t --layout NT --bias col --act gelu_tanh --beta 0.5
done
for t in $([ -n "$W" ] && echo f16 bf16); do
  pg verify --shape 5801x12404x6 --kernel shortk_${t}_64x128x16 --dtype $t --out-dtype $t
  pg verify --shape 777x1001x13 --kernel shortk_${t}_64x128x16 --dtype $t --out-dtype $t --layout TT --bias row --act gelu_erf --beta 0.5 --offset 3
done
for t in f16 bf16; do
  in_time 200 "tiny_k_heldout $t" || continue
  pg bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel shortk_${t}_32x256x16 ${W:+shortk_${t}$W} \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_new.md"
  pgp bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel shortk_${t}_32x256x16 \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_old.md"
done
for s in shortk_sweep shortk_tiny; do
  in_time 260 "$s" || continue
  pg bench --suite bench/suites/$s.txt --dtype f16 --out-dtype f16 --kernel shortk_f16_32x256x16 ${W:+shortk_f16$W} k0_f16_64x64x16 \
     --reps 30 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/${s}_f16_new.md"
  pgp bench --suite bench/suites/$s.txt --dtype f16 --out-dtype f16 --kernel shortk_f16_32x256x16 k0_f16_64x64x16 \
     --reps 30 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/${s}_f16_old.md"
done
in_time 300 "fuzz" && fuzz_types 300 40 f16:3303 bf16:3304
# shortk opted into auto: the tiny-K suite tuned into a copy of this card's table, then auto over the
# held-out tiny-K (and random) suites with it -- what shipping those entries would do.
export PIPEGEMM_AUTO_ALSO=shortk_f16_32x256x16,shortk_bf16_32x256x16${W:+,shortk_f16$W,shortk_bf16$W}
tune_copy bench/suites/tiny_k.txt 340
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_tuned 390 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
in_time 410 "memcheck" && gt_memcheck pipegemm_gpu_tests 'GpuLadder.ShortK*' 60
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --metrics dram__bytes_write.sum.per_second,dram__bytes_write.sum,smsp__inst_executed.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for x in "shortk_f16_32x256x16 4096x8192x2" "shortk_f16_32x256x16 4096x8194x2"; do
  set -- $x
  in_time 440 "ncu $1 $2" || continue
  { echo; echo "\$ $NCU --kernel-name regex:shortk pipegemm bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1"
    timeout 40 $NCU --kernel-name regex:shortk $PG bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
auto_suite bench/suites/random_heldout.txt random_heldout_tuned 470 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
