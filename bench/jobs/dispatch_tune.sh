# Dispatch (issue 11), call 1 of 2: the tests, then `tune` over the public random suite and the
# LLM suite in FP16 and BF16 into the table that ships (data/tune/h200.json). The table stays in
# the build tree for call 2 (bench/jobs/dispatch_check.sh) and is copied to $OUT.
#   TABLE: the table to write (default $BUILD/h200.json; a path in the working tree travels
#          between device calls, so a later call, even on a fresh machine, resumes it)
#   FRESH_TABLE=0 keeps what TABLE holds; TESTS=0 skips the tests; SUITES / DTYPES pick a part.
TABLE=${TABLE:-$PWD/$BUILD/h200.json}
[ "${FRESH_TABLE:-1}" = 1 ] && rm -f "$TABLE"
if [ "${TESTS:-1}" = 1 ]; then
  gt pipegemm_unit_tests
  gt pipegemm_gpu_tests
fi
for s in ${SUITES:-random llm}; do
  for t in ${DTYPES:-f16 bf16}; do pg tune --suite bench/suites/$s.txt --dtype $t --output "$TABLE"; done
done
cp "$TABLE" "$OUT/h200.json"
