# Session 11, call 6 (the last of the session's device time): skinny with W on the MMA's 8-wide
# side (its 16-byte vector is two B fragments: no MOV of a load in flight), two named register
# buffers, whole k_tiles in the loop and K's tail after it -- the GPU tests, its SASS proof, a tune
# of the decode suite into the shipped table, the decode suite with auto on it (burst), fuzz, and
# the element form on odd K.
# Run: scripts/gpu_session.sh bench/jobs/s11_call6.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'Skinny*:K4SplitK*'
for v in $("$PG" list | grep -o "skinny_[a-z0-9_]*" | sort -u); do pg sass --kernel $v --arch 90a --brief; done
TABLE=$PWD/data/tune/h200.json
for t in f16 bf16; do pg tune --suite bench/suites/decode.txt --dtype $t --output "$TABLE" --force; done
cp "$TABLE" "$OUT/h200.json"
export PIPEGEMM_TUNE_CACHE=$TABLE
for t in f16 bf16; do
  pg bench --suite bench/suites/decode.txt --dtype $t --out-dtype $t --kernel auto skinny_${t}_8x32x256_w4 skinny_${t}_8x32x256_w4_l2 \
     skinny_${t}_16x32x256_w4_l2 skinny_${t}_32x32x128_w4 --reps 30 --rounds 2 --idle-ms 25 \
     --output "$OUT/decode_${t}_skinny6.md"
done
pg fuzz --count 600 --dtype f16,bf16 --seed 20261213
for s in 1x4097x4099 16x4096x4095; do pg bench --shape $s --dtype f16 --kernel auto skinny_f16_8x32x256_w4_l2 skinny_f16_16x32x256_w4_l2 --reps 30 --rounds 2 --idle-ms 25; done
