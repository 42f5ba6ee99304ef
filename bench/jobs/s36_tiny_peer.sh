# Session 36. On an H200 (none came in sessions 26-35): s35_peer.sh's closing suites (LLM through auto,
# memory-bound with same-bytes copies, the epilogue cost at 4096^3, random through auto, the k5 and
# semantics GPU tests) with this build. On an H100:
# (1) the cuBLASLt peer's first-use timing over rotated copies of a problem the L2 could hold
#     (src/kernels/cublaslt_peer.cpp, TimingSets): both peers on the rows it is for (428x755x442 BF16,
#     856x66x1758 FP16), this build (pg) and the previous one (pgp: CI's build of 5bdc9ef) in
#     alternating processes; the held-out random suite through auto, pg then pgp a type;
# (2) why the tiny grids (~4 us: 92x411x6, 242x185x5, 754x77x5, 127x260x8, FP16) run k0 / shortk
#     ~0.5 us behind cuBLAS: bench of k0, shortk and both peers with programmatic dependent launch on
#     and off ($PIPEGEMM_PDL: shortk has it, k0 none), back to back; then each kernel's time alone
#     under Nsight Compute (gpu__time_duration of one launch, no neighbour to overlap), which tells
#     a gap in the launches' overlap from one in the kernel's own time;
# (3) correctness of the change: the GPU tests that run the peer's first use (C in place, batches,
#     threads on their own streams), verify of both peers and auto, fuzz 300 a type.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s36_tiny_peer.sh
#      (carry .carry: pipegemm.xz, tests/pipegemm_gpu_tests.xz = this build; prev/pipegemm.xz = 5bdc9ef)
if nvidia-smi -L | grep -q H200; then
  source bench/jobs/s35_peer.sh
  return 0
fi
# Correctness first (a call cut short keeps it): the PDL chain with k0, the peer's first use.
gt pipegemm_gpu_tests 'K5Pdl.*:GpuSemantics.VerifyMatrix*:GpuDevice.*'
for t in f16 bf16; do verify_peer_cases $t; done
for i in 1 2; do
  for t in "bf16 428x755x442" "f16 856x66x1758" "bf16 856x66x1758" "f16 428x755x442"; do
    read -r dt shape <<< "$t"
    pg bench --shape $shape --dtype $dt --out-dtype $dt --kernel cublas_$dt cublaslt_$dt --reps 60 --rounds 3 --warmup 5
    pgp bench --shape $shape --dtype $dt --out-dtype $dt --kernel cublas_$dt cublaslt_$dt --reps 60 --rounds 3 --warmup 5
  done
done
TINY="92x411x6 242x185x5 754x77x5 127x260x8"
for pdl in 1 0 1 0; do
  export PIPEGEMM_PDL=$pdl
  note "PIPEGEMM_PDL=$pdl"
  for s in $TINY; do
    pg bench --shape $s --dtype f16 --out-dtype f16 --kernel k0_f16_64x64x16 shortk_f16_32x256x16 \
       --reps 60 --rounds 3 --warmup 10
  done
done
unset PIPEGEMM_PDL
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for s in $TINY; do
  { echo; echo "\$ ncu --csv --page raw --clock-control none --metrics gpu__time_duration.sum,... pipegemm verify --shape $s --dtype f16 --out-dtype f16 --kernel k0_f16_64x64x16 shortk_f16_32x256x16 cublas_f16"
    timeout 120 "$NCU" --csv --page raw --clock-control none \
      --metrics gpu__time_duration.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block \
      "$PG" verify --shape $s --dtype f16 --out-dtype f16 --kernel k0_f16_64x64x16 shortk_f16_32x256x16 cublas_f16 \
      > "$OUT/ncu_$s.csv" 2> "$OUT/ncu_$s.err"
    echo "# exit $?"
    python3 - "$OUT/ncu_$s.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if len(rows) < 3: sys.exit(0)
h = rows[0]
want = ["Kernel Name", "gpu__time_duration.sum", "sm__cycles_active.avg", "gpc__cycles_elapsed.max", "launch__grid_size",
        "launch__block_size", "launch__registers_per_thread", "launch__shared_mem_per_block"]
idx = [h.index(w) for w in want if w in h]
print(" | ".join(h[i] for i in idx))
print(" | ".join(rows[1][i] for i in idx))
for r in rows[2:]:
    print(" | ".join(r[i][:60] for i in idx))
PY
  } >> "$OUT/run.log" 2>&1
done
auto_pair bench/suites/random_heldout.txt random_heldout 420 --reps 20 --rounds 2 --warmup 3 --max-ms-per-variant 200
in_time 500 "fuzz" && fuzz_types 300 40 f16:3613 bf16:3614
note "done at $(( $(date +%s) - t0 ))s"
