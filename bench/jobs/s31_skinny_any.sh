# Session 31: skinny's any-alignment form. Rows off 16 bytes (odd K or ld, 2-byte pointers) now load
# five aligned 4-byte words a lane, funnel-shifted into place just before the MMAs (OLD: eight
# 2-byte loads whose packing sat right after them, so every k_tile's loads landed before the
# previous k_tile's MMAs issued). Two CLIs: NEW (the working tree, .carry) and OLD (main d131c94,
# .carry/old).
# (1) NEW's correctness: the skinny GPU tests (the new NaN-either-side test included), verify of
#     misaligned thin shapes (odd K, odd ld, pointers one element off) through every skinny variant
#     and auto, a fuzz of 500 a 16-bit type, the skinny tests under compute-sanitizer memcheck.
# (2) the measure: bench/suites/thin_misaligned.txt, every skinny variant beside both cuBLAS peers,
#     OLD / NEW in alternating processes, two rounds a type, back to back.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_skinny_any.sh
#      (carry .carry: pipegemm.gz and tests/pipegemm_gpu_tests.gz new, old/pipegemm.gz old)
gunzip -f .carry/old/pipegemm.gz && chmod +x .carry/old/pipegemm
NEW=$PG
OLD=$PWD/.carry/old/pipegemm
note "NEW = $NEW, OLD = $OLD"
in_time 60 "GPU tests" && gt pipegemm_gpu_tests 'Skinny*'
for t in "f16" "bf16 --out-dtype bf16"; do
  k=${t%% *}
  SK="skinny_${k}_8x32x256_w4 skinny_${k}_8x32x256_w4_l2 skinny_${k}_16x32x256_w4 skinny_${k}_16x32x256_w4_l2 skinny_${k}_32x32x128_w4"
  in_time 200 "verify $k" || continue
  pg verify --shape 3x6310x16228 --kernel $SK auto --dtype $t
  pg verify --shape 13x9861x481 --kernel $SK auto --dtype $t --offset 1
  pg verify --shape 1x4096x4096 --lda 4099 --ldb 4101 --kernel $SK auto --dtype $t
  pg verify --shape 8177x23x599 --kernel $SK auto --dtype $t --bias col --act gelu_tanh --beta 0.5
  pg verify --shape 16x8192x8190 --kernel $SK auto --dtype $t --batch 3 --broadcast b
done
for i in 1 2; do
  for t in f16 bf16; do
    for w in old new; do
      in_time 420 "thin suite $t $w $i" || continue
      PG=$([ $w = old ] && echo "$OLD" || echo "$NEW") pg bench --suite bench/suites/thin_misaligned.txt --dtype $t \
          --out-dtype $t --kernel skinny_${t}_8x32x256_w4 skinny_${t}_8x32x256_w4_l2 skinny_${t}_16x32x256_w4 \
          skinny_${t}_16x32x256_w4_l2 skinny_${t}_32x32x128_w4 --reps 30 --rounds 2 --output "$OUT/thin_${t}_${w}_$i.md"
    done
  done
done
in_time 470 "fuzz" && fuzz_types 500 120 f16:3101 bf16:3102
in_time 520 "memcheck" && gt_memcheck pipegemm_gpu_tests 'SkinnyVerify.*' 60
note "done at $(( $(date +%s) - t0 ))s"
