# Session 34: shortk on the H200 (H200 only; the queue's item after s31_tune_misaligned.sh). The shortk
# GPU tests; the tiny-K suite (bench/suites/tiny_k.txt, 54 shapes a type) re-timed with every candidate,
# shortk's among them (tune times tuned-only variants), into a copy of data/tune/h200.json -- session 33
# did the H100's (shortk fastest on 47 of 108) -- kept as $OUT/h200.json for data/tune/h200.json; then
# auto with that table over the held-out tiny-K and random suites (in no table), the best cuBLAS beside.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s34_h200_tinyk.sh
#      (carry .carry/pipegemm.gz, .carry/tests: CI's build of the commit under test)
if ! nvidia-smi -L | grep -q H200; then
  note "not an H200: nothing to run"
  return 0
fi
gt pipegemm_gpu_tests 'GpuLadder.ShortK*:GpuSemantics.ShortK*'
tune_copy bench/suites/tiny_k.txt 300
auto_suite bench/suites/tiny_k_heldout.txt tiny_k_heldout 420 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy
auto_suite bench/suites/random_heldout.txt random_heldout 540 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
note "done at $(( $(date +%s) - t0 ))s"
