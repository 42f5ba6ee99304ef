# Session 34, call 4 (branch s34-shortk-regime): shortk a guess of auto's inside its measured regime
# (Variant::auto_guess_when: a grid of half the SMs or more, M and N above 32), not only where its own
# tune entry timed it. Auto over the held-out tiny-K and random suites (shapes in no table) with the
# shipped H100 table, this build (pg) then main's (pgp, CI's build of ebfea3f), the best cuBLAS beside
# each; the shortk GPU tests and fuzz 300 a type (auto and every variant).
# On an H200, s30_h200.sh's LLM and memory suites through auto instead (what ~300 s of budget holds).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s34_shortk_regime.sh
#      (carry .carry/pipegemm.gz, .carry/tests: CI's build of the branch; .carry/prev/pipegemm.gz: main's)
if nvidia-smi -L | grep -q H200; then  # ~300 s of budget left in session 34: s30_h200.sh's suites only
  auto_suite bench/suites/llm.txt llm_b2b 150 --reps 20 --rounds 2 --warmup 3
  for t in f16 bf16; do
    in_time 240 "memory $t" && pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto \
       --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_${t}_auto.md"
  done
  note "done at $(( $(date +%s) - t0 ))s"
  return 0
fi
gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*'
for t in f16 bf16; do
  in_time 200 "tiny_k_heldout $t" || continue
  pg bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel auto \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_auto_new.md"
  pgp bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel auto \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_auto_prev.md"
done
for t in f16 bf16; do
  in_time 360 "random_heldout $t" || continue
  pg bench --suite bench/suites/random_heldout.txt --dtype $t --out-dtype $t --kernel auto \
     --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 --output "$OUT/random_heldout_${t}_auto_new.md"
  pgp bench --suite bench/suites/random_heldout.txt --dtype $t --out-dtype $t --kernel auto \
     --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200 --output "$OUT/random_heldout_${t}_auto_prev.md"
done
in_time 450 "fuzz" && fuzz_types 300 40 f16:3413 bf16:3414
note "done at $(( $(date +%s) - t0 ))s"
