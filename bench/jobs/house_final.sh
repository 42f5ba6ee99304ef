# The house change, final tree: every GPU test; the dispatch issue's first yardstick (bench
# --suite, % of the best cuBLAS of cublasGemmEx and cuBLASLt's timed best) for auto as it stands
# (the highest rung that accepts), FP16, back to back; then docs/architecture.md's one-line
# variant shown working -- the job appends the line to this machine's copy of the table (the
# repository does not register it), rebuilds, and the new variant is listed, planned,
# SASS-checked, verified and timed with nothing else touched.
gt pipegemm_gpu_tests
pg sass --arch all --brief
suite() {  # suite NAME FILE REPS: bench --suite with a time limit, report kept under $OUT
  echo; echo "\$ pipegemm bench --suite $2 --kernel auto --reps $3 --output $1.md"
  timeout 200 "$PG" bench --suite "$2" --kernel auto --reps "$3" --output "$OUT/$1.md"
  echo "# exit $?"
} >> "$OUT/run.log" 2>&1
suite memory_suite_auto_f16 bench/suites/memory.txt 40
suite llm_suite_auto_f16 bench/suites/llm.txt 20
echo 'PIPEGEMM_K4(bf16, 128, 128, 64, 4, 2, 2, 8)' >> src/registry/variants.def
{ echo; echo "\$ echo 'PIPEGEMM_K4(bf16, 128, 128, 64, 4, 2, 2, 8)' >> src/registry/variants.def && cmake --build $BUILD"; } >> "$OUT/run.log"
cmake --build $BUILD -j 16 >> "$OUT/build.log" 2>&1; echo "# rebuild rc=$?" >> "$OUT/run.log"
pg list --family k4_multistage
pg plan --kernel k4_bf16_128x128x64_s4 --arch h200 --shape 4096x4096x4096
pg sass --kernel k4_bf16_128x128x64_s4 --brief
pg verify --shape 1000x1001x1000 --kernel k4_bf16_128x128x64_s4
pg bench --shape 4096x4096x4096 --kernel k4_bf16_128x128x64_s4 --kernel k4_bf16_256x128x64_s3 --reps 40
