# Session 32, call 1: shortk (K <= 16, kernels/shortk/kernel.cuh), built here from the working tree.
# (1) correctness: its GPU tests (every type on tiny K, the semantics matrix on three tiny-K shapes),
#     the ladder's type tests (shortk rides them at K <= 16), verify of odd cases through shortk and
#     auto (pointers one element off, MN-major, bias + GELU, batch with a broadcast);
# (2) its SASS verdict (FFMA, LDG, no overlap expected) and registers;
# (3) the measure, back to back: the held-out tiny-K suite (73 shapes in no table) with shortk beside
#     both cuBLAS peers and auto on the shipped H100 table (no shortk timings: auto never takes it),
#     each shape's same-bytes copy for %copyBW; then tune of the tiny-K suite (random's 54: shortk,
#     both peers and every other candidate timed) into a copy of the H100 table ($OUT/h100.json), and
#     auto over the held-out tiny-K suite again with that copy;
# (4) if time is left: the shortk tests under compute-sanitizer memcheck, a fuzz of 300 a 16-bit type.
# Run: scripts/gpu_session.sh bench/jobs/s32_shortk.sh pipegemm_cli pipegemm_gpu_tests   (carry .deps)
in_time 170 "GPU tests" && gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*:GpuLadder.Fp16WithFp32*:GpuLadder.Bf16*'
for t in "f16" "bf16 --out-dtype bf16"; do
  k=${t%% *}
  in_time 220 "verify $k" || continue
  pg verify --shape 2742x5363x2 --kernel shortk_${k}_32x256x16 auto --dtype $t
  pg verify --shape 777x1001x13 --kernel shortk_${k}_32x256x16 auto --dtype $t --offset 1
  pg verify --shape 513x300x16 --layout NT --kernel shortk_${k}_32x256x16 auto --dtype $t --bias col --act gelu_tanh --beta 0.5
  pg verify --shape 100x4000x3 --layout TT --kernel shortk_${k}_32x256x16 auto --dtype $t --batch 3 --broadcast b
done
in_time 235 "sass" && pg sass --kernel shortk_f16_32x256x16 shortk_bf16_32x256x16 shortk_bf16_f32out_32x256x16
for t in f16 bf16; do
  in_time 300 "bench tiny_k_heldout $t" && pg bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t \
     --kernel shortk_${t}_32x256x16 auto --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}.md"
done
tune_copy bench/suites/tiny_k.txt 380
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_tuned 450 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
in_time 470 "memcheck" && gt_memcheck pipegemm_gpu_tests 'GpuLadder.ShortK*' 40
in_time 490 "fuzz" && fuzz_types 300 25 f16:3201 bf16:3202
note "done at $(( $(date +%s) - t0 ))s"
# The binaries back (stripped, gzipped) for the next calls' PIPEGEMM_PREBUILT=.carry; the results in
# one tarball so the two fit the 8 files a call returns.
(cd "$OUT" && tar -cf bench.tar $(ls *.md *.json fuzz_*.log 2>/dev/null) --remove-files)
strip -o /tmp/pg "$PG" && gzip -c /tmp/pg > "$OUT/pipegemm.gz"
strip -o /tmp/pgt "$BUILD/tests/pipegemm_gpu_tests" && gzip -c /tmp/pgt > "$OUT/pipegemm_gpu_tests.gz"
