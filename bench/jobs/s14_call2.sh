# Session 14, call 2 (warm, after call 1): f16 fuzz 10,000 again, every variant, now that both cuBLAS peers refuse the
# K where cuBLAS 13.1 summed wrong (session 13's one mismatch).
# Run: scripts/gpu_session.sh bench/jobs/s14_call2.sh pipegemm_cli
(timeout 480 "$PG" fuzz --count 10000 --seed 14 --dtype f16 > "$OUT/fuzz_f16.log" 2>&1; echo "# exit $?" >> "$OUT/fuzz_f16.log")
{ echo; echo "\$ pipegemm fuzz --count 10000 --seed 14 --dtype f16"; grep -v "problems, .* runs, .* mismatch(es), .* s$" "$OUT/fuzz_f16.log"; } >> "$OUT/run.log"
