# Session 13, call 4: where does stream-K lose at 4096^3 (3.88 waves: 3 whole + 58 of 256 cluster
# units shared)? The same kernel sharing 58 (its plan), 124 (the last two waves) and all 256 units
# ($PIPEGEMM_K5_SK_UNITS), beside k5, burst. Then fuzz, 10,000 problems per type, the four types at
# once (issue 12; every variant that accepts a problem runs it, the stream-K ones included).
# Run: scripts/gpu_session.sh bench/jobs/s13_call4.sh pipegemm_cli
for n in 0 124 256; do
  PIPEGEMM_K5_SK_UNITS=$n pg bench --shape 4096x4096x4096 --dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_streamk \
     --reps 30 --rounds 3 --idle-ms 25
done
PIPEGEMM_K5_SK_UNITS=512 pg bench --shape 8192x8192x8192 --dtype f16 --kernel k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_streamk \
   --reps 20 --rounds 2 --idle-ms 25
for t in f16 bf16 i8 f32; do
  (timeout 430 "$PG" fuzz --count 10000 --seed 13 --dtype $t > "$OUT/fuzz_$t.log" 2>&1; echo "# exit $?" >> "$OUT/fuzz_$t.log") &
done
wait
for t in f16 bf16 i8 f32; do
  { echo; echo "\$ pipegemm fuzz --count 10000 --seed 13 --dtype $t   # (the four types ran at once)"
    grep -v "problems, .* runs, .* mismatch(es), .* s$" "$OUT/fuzz_$t.log"; } >> "$OUT/run.log"
done
