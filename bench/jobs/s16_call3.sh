# Session 16, call 3: the dispatch unit tests (CPU) on this tree, then the neighbours step's constants chosen
# by replay, no GPU work: each configuration ($PIPEGEMM_NB_*: neighbours K, radius R in quarter
# octaves, the model's share BETA of the correction, the risk share LAMBDA) over the shipped table
# left out entry by entry, and over call 2's held-out tune (200 shapes x FP16 / BF16, never tuned)
# against the whole shipped table.
# Run: scripts/gpu_session.sh bench/jobs/s16_call3.sh pipegemm_cli pipegemm_unit_tests
gt pipegemm_unit_tests "AutoChoice.*:TuneReplay.*:TunePick.*:ShapeBucket.*:TuneTable.*:CostModel.*:ShippedTables.*:PackedVariant.*:PackPlan.*"
HELD=bench/results/2026-12-04_h200_s16_call2_heldout_tune.json
mkdir -p /tmp/grid
for K in 5 8; do for R in 12 20; do for B in 0 0.5 1; do for L in 0 0.5; do
  ( export PIPEGEMM_NB_K=$K PIPEGEMM_NB_R=$R PIPEGEMM_NB_BETA=$B PIPEGEMM_NB_LAMBDA=$L
    "$PG" tune --replay --output data/tune/h200.json > /tmp/grid/loo_${K}_${R}_${B}_${L}.txt 2>&1
    "$PG" tune --replay --output data/tune/h200.json --targets $HELD > /tmp/grid/held_${K}_${R}_${B}_${L}.txt 2>&1 ) &
done; done; done; done
wait
{ for f in /tmp/grid/*.txt; do echo "== $(basename $f .txt)"; grep -E "^(auto|  of which|the model)" $f; done; } > "$OUT/grid.txt"
cat "$OUT/grid.txt" >> "$OUT/run.log"
for f in /tmp/grid/held_5_12_1_0.5.txt /tmp/grid/loo_5_12_1_0.5.txt; do cp $f "$OUT/"; done
