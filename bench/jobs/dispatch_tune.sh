# Dispatch (issue 11), call 1 of 2: the tests, then `tune` over the public random suite and the
# LLM suite in FP16 and BF16 into the table that ships (data/tune/h200.json). The table stays in
# the build tree for call 2 (bench/jobs/dispatch_check.sh) and is copied to $OUT.
TABLE=$PWD/$BUILD/h200.json
rm -f "$TABLE"
gt pipegemm_unit_tests
gt pipegemm_gpu_tests
for s in random llm; do
  for t in f16 bf16; do pg tune --suite bench/suites/$s.txt --dtype $t --output "$TABLE"; done
done
cp "$TABLE" "$OUT/h200.json"
