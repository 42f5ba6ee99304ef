# Dispatch (issue 11), call 2 of 3: `tune` over the LLM suite in FP16 and BF16, added to the table.
TABLE=$PWD/$BUILD/h200.json
for t in f16 bf16; do pg tune --suite bench/suites/llm.txt --dtype $t --output "$TABLE"; done
cp "$TABLE" "$OUT/h200.json"
