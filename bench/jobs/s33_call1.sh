# Session 33, call 1: the H200 queue's head if the card is an H200 (s30_h200.sh: LLM and memory suites
# through auto, the epilogue cost at 4096^3, the k5 and semantics GPU tests), else session 32's unrun
# shortk sweep and ncu (s32_shortk_sweep.sh), then why shortk takes ~5 us on tiny grids where k0 takes
# ~3 (32x1543x1, ldd odd: the staged stores): ncu of both, the same sections.
# Binaries: CI's build of 208a07d (sm_80 + sm_90a).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s33_call1.sh   (carry .carry/pipegemm.gz, .carry/tests)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s30_h200.sh
  return 0
fi
source bench/jobs/s32_shortk_sweep.sh
pg bench --suite bench/suites/shortk_tiny.txt --dtype f16 --out-dtype f16 \
   --kernel shortk_f16_32x256x16 k0_f16_64x64x16 --reps 50 --rounds 3 --warmup 5
for x in "shortk_f16_32x256x16 32x1543x1 shortk" "k0_f16_64x64x16 32x1543x1 k0"; do
  set -- $x
  in_time 420 "ncu $1 $2" || continue
  { echo; echo "\$ $NCU --kernel-name regex:$3 pipegemm bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1"
    timeout 40 $NCU --kernel-name regex:$3 $PG bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
note "done at $(( $(date +%s) - t0 ))s"
