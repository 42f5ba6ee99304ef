# Session 27: traced launches (docs/trace.md, ns-resolution calibration since 239c545) of the BF16 general
# form at 4096^3 with bias + GELU, its stores at once ($PIPEGEMM_K5_GENERAL_DEFER=0) and deferred into
# the next tile's mainloop (=1), beside the plain kernel: each consumer's epilogue span, where the two
# consumers' epilogues fall against each other, and the MMA lanes' idle time at the tile boundaries.
# (Call 6 ran it with the loop of trace_epilogues written out, plain traced at DEFER=0 only.)
# Run: PIPEGEMM_PREBUILT=.none scripts/gpu_session.sh bench/jobs/s27_defer_trace.sh   (carry .deps; only the traced CLI is built)
if build_traced 16; then
  for d in 0 1; do PIPEGEMM_K5_GENERAL_DEFER=$d trace_epilogues defer$d; done
fi
note "done at $(( $(date +%s) - t0 ))s"
