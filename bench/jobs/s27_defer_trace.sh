# Session 27: traced launches (docs/trace.md, ns-resolution calibration since 239c545) of the BF16 general
# form at 4096^3 with bias + GELU, its stores at once ($PIPEGEMM_K5_GENERAL_DEFER=0) and deferred into
# the next tile's mainloop (=1), beside the plain kernel: each consumer's epilogue span, where the two
# consumers' epilogues fall against each other, and the MMA lanes' idle time at the tile boundaries.
# Run: PIPEGEMM_PREBUILT=.none scripts/gpu_session.sh bench/jobs/s27_defer_trace.sh   (carry .deps; only the traced CLI is built)
note() { echo "# $*" >> "$OUT/run.log"; }
if build_traced 16; then
  for d in 0 1; do
    export PIPEGEMM_K5_GENERAL_DEFER=$d
    for e in plain "bias col" "bias col --act gelu_tanh"; do
      tag=$(echo "$e" | tr -d ' -' | sed 's/biascolactgelu_tanh/bias_gelu/;s/biascol/bias/')
      [ "$tag" = plain ] && [ $d = 1 ] && continue
      opts=$([ "$e" = plain ] || echo "--$e")
      pgt trace --kernel k5_bf16_128x256x64_s4 --shape 4096x4096x4096 --dtype bf16 --out-dtype bf16 $opts --sms 2 \
          --seed 7 --out "$OUT/trace_${tag}_defer$d.json" --svg "$OUT/trace_${tag}_defer$d.svg"
    done
  done
  unset PIPEGEMM_K5_GENERAL_DEFER
fi
note "done at $(( $(date +%s) - t0 ))s"
