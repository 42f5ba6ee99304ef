# Session 29: the H200's share of bench/jobs/s29_call3.sh (the weight-in-registers run, then the K
# sweep, compute suite, general-defer epilogue cost, GPU tests and fuzz with the halves default);
# on any other card it stops at once (those ran on an H100 in calls 3-4).
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s29_h200.sh   (carry .carry)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s29_call3.sh
else
  note "not an H200: nothing to run (calls 3-4 ran this on an H100)"
fi
