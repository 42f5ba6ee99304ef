# Dispatch (issue 11), call 1 of 3: the tests, then `tune` over the public random suite in FP16
# and BF16 into the table that ships (data/tune/h200.json). The table lives in the build tree
# between calls (kept on the device machine) and is copied to $OUT after every call.
TABLE=$PWD/$BUILD/h200.json
gt pipegemm_unit_tests
gt pipegemm_gpu_tests
for t in f16 bf16; do pg tune --suite bench/suites/random.txt --dtype $t --output "$TABLE"; done
cp "$TABLE" "$OUT/h200.json"
