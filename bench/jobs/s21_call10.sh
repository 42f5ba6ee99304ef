# Session 21, call 10 (the session's last device minutes): (1) s8 packed as an auto candidate --
# fuzz of s8 through auto and every variant; auto's choice on an odd-K s8 problem; (2) the random
# suite re-tuned (the packed form's timings predate session 20's pack copy: 14304x8552x10868 5.6 ->
# 4.3 ms) and the batched suite's BF16 tune, into data/tune/h200.json (copied to $OUT: the table to
# commit); (3) issue 12's random-suite criterion: auto over it with that table, best cuBLAS beside,
# back to back, FP16 then BF16, as far as the call's time goes.
# Run: scripts/gpu_session.sh bench/jobs/s21_call10.sh pipegemm_cli
pg fuzz --count 2000 --dtype i8 --seed 20261205
pg bench --shape 4096x4096x4095 --dtype i8 --acc i32 --out-dtype i32 --kernel auto --reps 10 --rounds 2 --warmup 2
for t in f16 bf16; do pg tune --suite bench/suites/random.txt --dtype $t --output data/tune/h200.json --force; done
pg tune --suite bench/suites/batched.txt --dtype bf16 --output data/tune/h200.json --force
cp data/tune/h200.json "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  if [ $(( $(date +%s) - t0 )) -gt 330 ]; then note "skipped random $t auto: out of call time"; continue; fi
  pg bench --suite bench/suites/random.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/random_${t}_auto_b2b.md"
done
