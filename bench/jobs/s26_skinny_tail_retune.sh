# Written in session 25, for the next GPU: the skinny's 16-byte tail (session 25, call 10: tiny
# aligned K 20-40% faster) was verified by verify + fuzz only. (1) the skinny GPU tests, the new
# SkinnyVerify.VectorFormTailIgnoresNaNPaddingPastK included; (2) the suites whose shapes include
# thin problems re-timed (--force) into a copy of this card's table -- data/tune/h200.json on an
# H200, data/tune/h100.json on an H100 (tune_copy: $OUT/$CARD.json, commit it there); (3) auto over the
# random and held-out suites with it, back to back.
# Needs the GPU test binary: a device build, or .carry/tests/pipegemm_gpu_tests beside the CLI.
# Run: scripts/gpu_session.sh bench/jobs/s26_skinny_tail_retune.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "Skinny*"
[ "$CARD" = gpu ] && { note "neither an H200 nor an H100: no table to re-tune"; return 0; }
for s in random decode small_weights; do tune_copy bench/suites/$s.txt 300; done
auto_suite bench/suites/random.txt random_b2b 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 520 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
