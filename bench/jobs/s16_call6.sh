# Session 16, call 6: k0 with 64x64 tiles (tiny problems whose rows are not 16-byte vectors, which
# only k0 takes): verified (odd shapes, the full semantics), fuzzed with every variant, timed beside
# the 128x128 k0 and both peers on the held-out suite's slow tiny shapes; the random suite re-tuned
# with it (the shipped table) and auto over the random and held-out suites again, back to back.
# Run: scripts/gpu_session.sh bench/jobs/s16_call6.sh pipegemm_cli
for t in f16 bf16; do
  for s in 127x260x8 1x1x1 333x517x272 4095x4097x13; do pg verify --shape $s --kernel k0_${t}_64x64x16 --dtype $t --out-dtype $t; done
  pg verify --shape 333x517x271 --kernel k0_${t}_64x64x16 --dtype $t --out-dtype $t --layout NT --alpha 0.5 --beta 2 \
     --bias col --act gelu_tanh --batch 3 --broadcast b
done
pg fuzz --count 1000 --dtype f16,bf16 --seed 20261217
for t in f16 bf16; do
  for s in 127x260x8 754x177x6 540x281x10 92x411x6 1105x228x13 4095x4097x13; do
    pg bench --shape $s --dtype $t --out-dtype $t --kernel k0_${t}_64x64x16 k0_${t}_128x128x16 --reps 40 --rounds 2
  done
done
for t in f16 bf16; do pg tune --suite bench/suites/random.txt --dtype $t --output data/tune/h200.json --force; done
cp data/tune/h200.json "$OUT/h200.json"
# The table is compiled in: rebuild so that auto reads the new one alone (no user cache).
cmake --build build/gpu --target pipegemm_cli >> "$OUT/build.log" 2>&1; echo "# rebuilt with the new table: rc=$?" >> "$OUT/run.log"
export PIPEGEMM_TUNE_CACHE=off
for s in random random_heldout; do for t in f16 bf16; do
  pg bench --suite bench/suites/$s.txt --dtype $t --out-dtype $t --kernel auto --reps 20 --rounds 2 --warmup 3 \
     --max-ms-per-variant 200 --output "$OUT/${s}_${t}_auto.md"
done; done
