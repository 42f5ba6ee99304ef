# Session 25: whichever card comes. An H200: bench/jobs/s25_epilogue_tune.sh (auto's fused epilogues
# from their own tune entries; issue 13's GELU cost again). An H100 (the device lends mostly those
# now): complete its table -- the compute, decode, batched and small-weights suites tuned into a copy
# of data/tune/h100.json ($OUT/h100.json: commit it there), then auto over the compute and decode
# suites with it, back to back.
# (Ran on an H100 in call 6; since then an H100 only notes the card: its table is complete.)
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s25_next.sh
case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in
  *H200*) note "an H200: s25_epilogue_tune.sh"; source bench/jobs/s25_epilogue_tune.sh ;;
  *)
    if grep -q '"shape": "6144x6144x6144"' data/tune/h100.json 2>/dev/null; then note "not an H200, and the H100 table is complete: nothing to run"; return 0; fi
    T=$PWD/h100_job.json
    cp data/tune/h100.json "$T"
    for s in compute decode batched small_weights; do
      for t in f16 bf16; do
        in_time 360 "tune $s $t" && pg tune --suite bench/suites/$s.txt --dtype $t --output "$T"
      done
      cp "$T" "$OUT/h100.json"
    done
    export PIPEGEMM_TUNE_CACHE=$T
    auto_suite bench/suites/compute.txt compute_b2b 450 --reps 20 --rounds 2 --warmup 3
    auto_suite bench/suites/decode.txt decode_b2b 520 --reps 20 --rounds 2 --warmup 3
    rm -f "$T"
    note "done at $(( $(date +%s) - t0 ))s" ;;
esac
