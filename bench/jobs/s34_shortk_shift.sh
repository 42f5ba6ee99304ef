# Session 34 (branch s34-shortk-shifted-rows, on session 33's s33-shortk-unrolled-stores): shortk's
# rows of D off 16 bytes (odd ldd, a pointer off 16 bytes) written as 16-byte vectors realigned across
# lanes (shfl.up), and the store loops unrolled to compile-time counts -- beside a previous build
# (pgp), processes alternating; and auto as shipped (shortk auto's where its own tune entry timed it
# fastest, the H100 table's tiny-K entries re-tuned in session 33) over the held-out tiny-K and
# random suites.
# (1) the shortk GPU tests (GpuLadder.ShortKStoresRowsAtEveryAlignmentOfD among them), verify of
# rows off 16 bytes (odd and even ldd, f32 D, a batch), memcheck; (2) the tiny grids and the sweep,
# new then previous; (3) the held-out tiny-K suite, new then previous; (4) fuzz 300 a type; (5) auto
# over the held-out tiny-K and random suites with the shipped table; ncu of the 32x256 config on 16-byte
# rows and on rows off 16 bytes (smem bank conflicts, instructions, DRAM write rate), new and previous.
# Call 1 ran the shifted-tile form (321e8a8) against 672a649; call 2 the shuffle form (2501fb2)
# against a575f29 (session 33's unrolled 4-byte words); call 3 ebfea3f (a575f29's store paths, and the
# fill loading only k < KP, KP = 4, 8 or 16) against a575f29, whose correctness the previous build's
# fuzz and verify lines check (it was never run on a GPU but as call 2's previous build).
# On an H200 the H200 queue's head runs instead (s30_h200.sh).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s34_shortk_shift.sh
#      (carry .carry/pipegemm.gz, .carry/tests: CI's build of the branch; .carry/prev/pipegemm.gz: the
#      build compared against)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s30_h200.sh
  return 0
fi
gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*'
for k in shortk_f16_32x256x16 shortk_f16_64x128x16; do
  pg verify --shape 3754x10117x5 --kernel $k --dtype f16 --offset 1 --bias row --act relu
  pg verify --shape 1000x8194x16 --kernel $k --dtype f16 --layout NN --beta 0.5 --batch 3
done
pg verify --shape 3001x4099x3 --kernel shortk_f16_32x256x16 --dtype f16 --layout TT --offset 3
pg verify --shape 515x1027x4 --kernel shortk_bf16_64x128x16 --dtype bf16 --out-dtype bf16 --layout NT --bias col --act gelu_erf
pg verify --shape 2050x333x1 --kernel shortk_bf16_32x256x16 --dtype bf16 --out-dtype bf16 --batch 2
pg verify --shape 777x1001x13 --kernel shortk_bf16_f32out_32x256x16 --dtype bf16 --out-dtype f32 --ldd 1003 --act gelu_tanh
in_time 100 "memcheck" && gt_memcheck pipegemm_gpu_tests 'GpuLadder.ShortK*' 60
for s in shortk_tiny shortk_sweep; do
  in_time 200 "$s" || continue
  pg bench --suite bench/suites/$s.txt --dtype f16 --out-dtype f16 --kernel shortk_f16_32x256x16 shortk_f16_64x128x16 k0_f16_64x64x16 \
     --reps 30 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/${s}_f16_new.md"
  pgp bench --suite bench/suites/$s.txt --dtype f16 --out-dtype f16 --kernel shortk_f16_32x256x16 shortk_f16_64x128x16 k0_f16_64x64x16 \
     --reps 30 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/${s}_f16_prev.md"
done
for t in f16 bf16; do
  in_time 280 "tiny_k_heldout $t" || continue
  pg bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel shortk_${t}_32x256x16 shortk_${t}_64x128x16 \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_new.md"
  pgp bench --suite bench/suites/tiny_k_heldout.txt --dtype $t --out-dtype $t --kernel shortk_${t}_32x256x16 shortk_${t}_64x128x16 \
     --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/tiny_k_heldout_${t}_prev.md"
done
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__bytes_write.sum.per_second"
for x in "new 4096x8192x2" "new 4096x8194x2" "new 4096x8195x2" "prev 4096x8194x2" "prev 4096x8195x2"; do
  set -- $x
  bin=$PG; [ $1 = prev ] && bin=$PWD/.carry/prev/pipegemm
  in_time 300 "ncu $1 $2" || continue
  { echo; echo "\$ $NCU --kernel-name regex:shortk pipegemm($1) bench --shape $2 --kernel shortk_f16_32x256x16 --no-peers --reps 3 --warmup 3 --rounds 1"
    timeout 40 $NCU --kernel-name regex:shortk $bin bench --shape $2 --kernel shortk_f16_32x256x16 --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
in_time 320 "fuzz" && fuzz_types 300 40 f16:3313 bf16:3314
# The previous build's correctness (pgp): fuzz 300 a type beside, and verify of rows off 16 bytes.
for ts in f16:3323 bf16:3324; do
  (timeout 40 "$PWD/.carry/prev/pipegemm" fuzz --count 300 --seed "${ts#*:}" --dtype "${ts%%:*}" > "$OUT/fuzz_prev_${ts%%:*}.log" 2>&1
   echo "# exit $?" >> "$OUT/fuzz_prev_${ts%%:*}.log") &
done
wait
pgp verify --shape 3754x10117x5 --kernel shortk_f16_32x256x16 --dtype f16 --offset 1 --bias row --act relu
pgp verify --shape 1000x8194x16 --kernel shortk_f16_64x128x16 --dtype f16 --layout NN --beta 0.5 --batch 3
pgp verify --shape 777x1001x13 --kernel shortk_bf16_f32out_32x256x16 --dtype bf16 --out-dtype f32 --ldd 1003 --act gelu_tanh
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_shipped 380 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
auto_suite bench/suites/random_heldout.txt random_heldout_shipped 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
# Call 3: the H100 table's tiny-K entries re-timed with this build ($OUT/h100.json), auto again with it.
tune_copy bench/suites/tiny_k.txt 460
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout_retuned 500 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
auto_suite bench/suites/random_heldout.txt random_heldout_retuned 540 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
