# Session 12, call 5: the shipped state (call 3's kernels): the random suite with auto beside the
# best cuBLAS (issue 12's 200 shapes, back to back), then fuzz of every type, the four at once
# (the host's comparison takes the time; 10,000 per type would not fit the call's 10 minutes),
# every variant included (skinny, the k5 general epilogue of this session).
# Run: scripts/gpu_session.sh bench/jobs/s12_call5.sh pipegemm_cli
for t in f16 bf16; do
  pg bench --suite bench/suites/random.txt --dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/random_${t}_auto.csv" --output "$OUT/random_${t}_auto.md"
done
declare -A COUNT=([f16]=3000 [bf16]=3000 [i8]=1000 [f32]=1000)
for t in f16 bf16 i8 f32; do
  ("$PG" fuzz --count ${COUNT[$t]} --seed 1212 --dtype $t > "$OUT/fuzz_$t.log" 2>&1; echo "# exit $?" >> "$OUT/fuzz_$t.log") &
done
wait
for t in f16 bf16 i8 f32; do
  { echo; echo "\$ pipegemm fuzz --count ${COUNT[$t]} --seed 1212 --dtype $t   # (f16 bf16 i8 f32 ran at once)"
    cat "$OUT/fuzz_$t.log"; } >> "$OUT/run.log"
  rm -f "$OUT/fuzz_$t.log"
done
