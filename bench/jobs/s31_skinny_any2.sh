# Session 31, calls 2-3: s31_skinny_any.sh again after call 1 found the any-alignment form 1.2-1.9x
# slower than the element form: its W words were L1::no_allocate loads, so each of a lane's five
# words went to L2 (5x the sectors). Now L1-allocating (ld.global.nc[.L2::256B].b32); call 3: the tail
# k_tile in element loads throughout, the 32-row form held to 3 CTAs an SM. The skinny
# GPU tests, then the thin suite OLD / NEW alternating (BF16 twice, FP16 once), back to back.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s31_skinny_any2.sh  (carry .carry)
gunzip -f .carry/old/pipegemm.gz && chmod +x .carry/old/pipegemm
NEW=$PG
OLD=$PWD/.carry/old/pipegemm
note "NEW = $NEW, OLD = $OLD"
in_time 60 "GPU tests" && gt pipegemm_gpu_tests 'Skinny*'
for r in bf16:1 f16:1 bf16:2; do
  t=${r%%:*} i=${r##*:}
  for w in old new; do
    in_time 400 "thin suite $t $w $i" || continue
    PG=$([ $w = old ] && echo "$OLD" || echo "$NEW") pg bench --suite bench/suites/thin_misaligned.txt --dtype $t \
        --out-dtype $t --kernel skinny_${t}_8x32x256_w4 skinny_${t}_8x32x256_w4_l2 skinny_${t}_16x32x256_w4 \
        skinny_${t}_16x32x256_w4_l2 skinny_${t}_32x32x128_w4 --reps 30 --rounds 2 --output "$OUT/thin_${t}_${w}_$i.md"
  done
done
note "done at $(( $(date +%s) - t0 ))s"
