# Session 16, call 1 (prepared in session 15): the random suite re-tuned with the BN = 128 k5 among
# the candidates and tune's 2% rule (into data/tune/h200.json, copied to $OUT), then auto over it
# back to back with --candidates (auto against the fastest candidate and against best cuBLAS), and
# the mid-size squares the cost model now gives the BN = 128 k5 (untuned), beside cuBLAS.
# Run: scripts/gpu_session.sh bench/jobs/s16_call1.sh pipegemm_cli
for t in f16 bf16; do pg tune --suite bench/suites/random.txt --dtype $t --output data/tune/h200.json --force; done
cp data/tune/h200.json "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$PWD/data/tune/h200.json
for t in f16 bf16; do
  pg bench --suite bench/suites/random.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/random_${t}_auto.md"
done
PIPEGEMM_TUNE_CACHE=off pg bench --shape 512:1024:256x512:1024:256x512:1024:256 --dtype f16 --out-dtype f16 \
   --kernel auto k5_f16_128x128x64_s6 k5_f16_128x256x64_s4 --reps 40 --rounds 2 --idle-ms 25 --output "$OUT/midsize_model.md"
