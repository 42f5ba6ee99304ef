# Session 28: bench/jobs/s27_stagger_every.sh's measurement with main's CLI (carried as .carry/old):
# epilogue_cost at 4096^3, k5 only, $PIPEGEMM_K5_STAGGER_EVERY 0 / 1 in alternating processes
# (3 BF16 + 2 FP16 runs a setting), burst; then verify and a fuzz with it on.
# Run: PIPEGEMM_PREBUILT=.carry/old scripts/gpu_session.sh bench/jobs/s28_stagger_every.sh
alternate_knob PIPEGEMM_K5_STAGGER_EVERY every 3
export PIPEGEMM_K5_STAGGER_EVERY=1
for t in "f16" "bf16 --out-dtype bf16"; do
  pg verify --shape 4096x4096x4096 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --bias col --act gelu_tanh
  pg verify --shape 1000x1064x3000 --kernel k5_${t%% *}_128x256x64_s4 k5_${t%% *}_128x128x64_s6 --dtype $t
done
fuzz_types 200 60 f16:2821 bf16:2822
note "done at $(( $(date +%s) - t0 ))s"
