# Session 25: the skinny's vector form at a tiny K. On the H100 (call 9) 1x252x8 took 3.8 us in
# skinny_bf16_8x32x256_w4 where the 64x64 k0 took 2.6 and every odd-K (element form) tiny shape in
# the table ran skinny at 2.6-2.8. In the vector form's tail k_tile, every lane whose 8 elements
# lie past K took the element path (8 clamped loads) beside the one vector inside K; now such a lane
# returns zeros and reads nothing (kernels/skinny/kernel.cuh, load8). (1) verify the new build on
# shapes whose tail straddles K with 16-byte rows (padded lda / ldb), every skinny config, both
# types; fuzz 300; (2) the suite above, old and new CLI alternating, back to back.
# .carry/pg_old: the CLI before (24a80e6 + nothing); .carry/pipegemm: with the change.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_skinny_tail.sh
for t in f16 bf16; do
  for sk in 8x32x256_w4 8x32x256_w4_l2 16x32x256_w4 32x32x128_w4; do
    for s in "1x252x8 8" "5x1000x12 16" "3x777x100 104" "8x4096x4100 4104" "30x513x66 72" "4100x5x20 24" "2x300x1 8"; do
      set -- $s
      pg verify --shape $1 --dtype $t --out-dtype $t --kernel skinny_${t}_$sk --lda $2 --ldb $2 --no-peers
    done
  done
done
grep -c "FAIL" "$OUT/run.log" | sed 's/^/# FAIL lines so far: /' >> "$OUT/run.log"
in_time 200 "fuzz" && timeout 120 "$PG" fuzz --count 300 --dtype f16,bf16 --seed 2026120525 >> "$OUT/run.log" 2>&1
for i in 1 2; do
  for which in old new; do
    in_time 330 "bench $which $i" || continue
    [ $which = old ] && PGX=$PWD/.carry/pg_old || PGX=$PWD/.carry/pipegemm
    { echo "\$ pipegemm($which) bench --suite bench/jobs/s25_tiny_k.txt --dtype bf16 ..."
      "$PGX" bench --suite bench/jobs/s25_tiny_k.txt --dtype bf16 --out-dtype bf16 --kernel skinny_bf16_8x32x256_w4 \
        skinny_bf16_16x32x256_w4 k0_bf16_64x64x16 cublaslt_bf16 --reps 40 --rounds 2 --output "$OUT/tiny_k_${which}_$i.md" | tail -12
      echo "# exit $?"; } >> "$OUT/run.log" 2>&1
  done
done
note "done at $(( $(date +%s) - t0 ))s"
