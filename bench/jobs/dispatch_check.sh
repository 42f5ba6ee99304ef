# Dispatch (issue 11), call 2 of 2: with the table made by call 1 (bench/jobs/dispatch_tune.sh) as
# auto's cache, the suites with `--kernel auto --candidates`: auto beside every variant that
# accepts each shape (cuBLAS included, nothing pruned), same run, same buffers, back to back.
# csv + md reports. SUITES / DTYPES pick a part (the device allows 10 minutes a call); FUZZ=1 runs
# the GPU fuzz and tune tests first, FUZZ10K=1 ends with `fuzz --count 10000` for every type
# (FUZZ_DTYPES: some of them). TABLE: the table call 1 wrote (default $BUILD/h200.json).
# The LLM suite runs with --idle-ms $LLM_IDLE_MS (default 25): its large GEMMs hold the 700 W cap,
# and back to back the same kernel timed twice differed by up to 20% (whichever came after a
# heavy block paid for it); the random suite, mostly a few microseconds a shape, runs back to back.
export PIPEGEMM_TUNE_CACHE=${TABLE:-$PWD/$BUILD/h200.json}
[ -n "${FUZZ:-}" ] && gt pipegemm_gpu_tests 'GpuFuzz.*:GpuTune.*'
for s in ${SUITES-random llm}; do
  for t in ${DTYPES:-f16 bf16}; do
    idle=0; [ $s = llm ] && idle=${LLM_IDLE_MS:-25}
    pg bench --suite bench/suites/$s.txt --dtype $t --kernel auto --candidates --reps 20 --rounds 2 --warmup 3 \
       --idle-ms $idle --max-ms-per-variant 200 --output "$OUT/${s}_${t}_auto.csv" --output "$OUT/${s}_${t}_auto.md"
  done
done
if [ -n "${FUZZ10K:-}" ]; then  # the types at once: the host's comparison, not the GPU, takes the time
  for t in ${FUZZ_DTYPES:-f16 bf16 i8 f32}; do
    ("$PG" fuzz --count 10000 --seed 7 --dtype $t > "$OUT/fuzz_$t.log" 2>&1; echo "# exit $?" >> "$OUT/fuzz_$t.log") &
  done
  wait
  for t in ${FUZZ_DTYPES:-f16 bf16 i8 f32}; do
    { echo; echo "\$ pipegemm fuzz --count 10000 --seed 7 --dtype $t   # (${FUZZ_DTYPES:-f16 bf16 i8 f32} ran at once)"
      cat "$OUT/fuzz_$t.log"; } >> "$OUT/run.log"
    rm -f "$OUT/fuzz_$t.log"
  done
fi
cp "$PIPEGEMM_TUNE_CACHE" "$OUT/h200.json"
# The device returns at most 8 files: the reports travel as one archive.
if ls "$OUT"/*_auto.csv > /dev/null 2>&1; then
  (cd "$OUT" && tar czf reports.tgz ./*_auto.csv ./*_auto.md && rm -f ./*_auto.csv ./*_auto.md)
fi
