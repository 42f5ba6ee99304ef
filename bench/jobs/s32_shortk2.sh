# Session 32, call 2: shortk with staged stores for D rows off 16 bytes (call 1: a lane's 8 columns
# stored element by element there, 16 bytes apart across the warp -- 0.28-0.34 of cuBLASLt on the
# large held-out tiny-K shapes, whose N is seldom a multiple of 8). Built here from the working tree.
# (1) its GPU tests, verify of large misaligned tiny-K shapes (odd and even-not-8 ldd, f32 D), a fuzz;
# (2) the held-out tiny-K suite with shortk beside both peers and auto (shipped H100 table);
# (3) tune of the tiny-K suite into a copy of the H100 table ($OUT/h100.json), auto over the
#     held-out tiny-K suite and the held-out random suite with it, back to back.
# Run: scripts/gpu_session.sh bench/jobs/s32_shortk2.sh pipegemm_cli pipegemm_gpu_tests   (carry .deps)
in_time 170 "GPU tests" && gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*'
for t in "f16" "bf16 --out-dtype bf16" "bf16 --out-dtype f32"; do
  k=${t%% *}; o=$([ "${t##* }" = f32 ] && echo ${k}_f32out || echo $k)
  in_time 200 "verify $o" || continue
  pg verify --shape 5801x12404x6 --kernel shortk_${o}_32x256x16 auto --dtype $t
  pg verify --shape 3754x10117x5 --kernel shortk_${o}_32x256x16 auto --dtype $t --offset 1 --bias row --act relu
done
for t in f16 bf16; do
  in_time 250 "bench tiny_k_heldout $t" && pg bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t \
     --kernel shortk_${t}_32x256x16 auto --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}.md"
done
tune_copy bench/suites/tiny_k.txt 310
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_tuned 350 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
auto_suite bench/suites/random_heldout.txt random_heldout_tuned 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
in_time 440 "fuzz" && fuzz_types 300 25 f16:3203 bf16:3204
note "done at $(( $(date +%s) - t0 ))s"
