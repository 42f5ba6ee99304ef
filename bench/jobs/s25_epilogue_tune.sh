# Written in session 24: auto's choice for fused epilogues. In session 24's run (bench/results/
# 2026-12-05_h200_s24_call1_epi_*) k5's bias + GELU at 4096^3 BF16 took 0.1814 ms against cuBLASLt's
# fused 0.1860 (FP16 level), yet auto ran cuBLASLt: no tune entry holds an epilogue bucket (".e..."),
# and the cost model ranks the two level. (1) tune the epilogue suite into a copy of the shipped table,
# only the buckets it lacks (its plain lines keep their entries); (2) auto over the suite with that
# copy, burst, k5 and cuBLASLt beside it (--candidates: every candidate auto chose among);
# (3) the epilogue_cost suite with auto again, 3 BF16 + 2 FP16 runs. If auto's GELU rows follow k5
# where it is faster: commit $OUT/h200.json as data/tune/h200.json.
# Read: $OUT/epilogue_*_auto.md; semantics_collate.py --group s25 $OUT/epi_*_s25_run*.md.
# Run: scripts/gpu_session.sh bench/jobs/s25_epilogue_tune.sh pipegemm_cli pipegemm_gpu_tests
tune_copy bench/suites/epilogue.txt 300 new
auto_suite bench/suites/epilogue.txt epilogue 420 --candidates --reps 20 --rounds 2 --idle-ms 25
export EPI_KERNELS="k5_@_128x256x64_s4 cublaslt_@ auto"
for i in 1 2 3; do
  in_time 540 "epilogue_cost run $i" && epilogue_cost s25 $i
done
note "done at $(( $(date +%s) - t0 ))s"
