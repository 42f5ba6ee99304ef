# Written in session 25, for the next GPU: the skinny's 16-byte tail (session 25, call 10: tiny
# aligned K 20-40% faster) was verified by verify + fuzz only. (1) the skinny GPU tests, the new
# SkinnyVerify.VectorFormTailIgnoresNaNPaddingPastK included; (2) the suites whose shapes include
# thin problems re-timed (--force) into a copy of this card's table -- data/tune/h200.json on an
# H200, data/tune/h100.json on an H100 ($OUT/<card>.json: commit it there); (3) auto over the
# random and held-out suites with it, back to back.
# Needs the GPU test binary: a device build, or .carry/tests/pipegemm_gpu_tests beside the CLI.
# Run: scripts/gpu_session.sh bench/jobs/s26_skinny_tail_retune.sh pipegemm_cli pipegemm_gpu_tests
note() { echo "# $*" >> "$OUT/run.log"; }
gt pipegemm_gpu_tests "Skinny*"
case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in
  *H200*) card=h200 ;;
  *H100*) card=h100 ;;
  *) note "neither an H200 nor an H100: no table to re-tune"; return 0 ;;
esac
T=$PWD/${card}_job.json
cp data/tune/$card.json "$T"
for s in random decode small_weights; do
  for t in f16 bf16; do
    in_time 300 "tune $s $t" && pg tune --suite bench/suites/$s.txt --dtype $t --output "$T" --force
  done
  cp "$T" "$OUT/$card.json"
done
export PIPEGEMM_TUNE_CACHE=$T
auto_suite bench/suites/random.txt random_b2b 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
auto_suite bench/suites/random_heldout.txt random_heldout_b2b 520 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
rm -f "$T"
note "done at $(( $(date +%s) - t0 ))s"
