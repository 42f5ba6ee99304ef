# Session 32, call 3: where shortk's time goes on a large D. (1) bench of a sweep (bench/suites/
# shortk_sweep.txt: 4096x8192 with K 1..16, D rows in 16-byte vectors and off them, one small shape)
# with shortk beside both peers, both types, back to back, each shape's same-bytes copy for %copyBW;
# (2) ncu (SpeedOfLight, memory, scheduler, warp stalls) on one shortk launch and one cuBLASLt launch at
# 4096x8192x2 and shortk at 4096x8194x2 (the staged stores).
# Run: scripts/gpu_session.sh bench/jobs/s32_shortk_sweep.sh pipegemm_cli   (carry .deps)
for t in f16 bf16; do
  in_time 200 "sweep $t" && pg bench --suite bench/suites/shortk_sweep.txt --dtype $t --out-dtype $t \
     --kernel shortk_${t}_32x256x16 --reps 20 --rounds 2 --warmup 3 --same-bytes-copy --output "$OUT/sweep_${t}.md"
done
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --section Occupancy --metrics dram__bytes_write.sum.per_second,dram__bytes_read.sum,dram__bytes_write.sum,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for x in "shortk_f16_32x256x16 4096x8192x2 shortk" "shortk_f16_32x256x16 4096x8194x2 shortk" "cublaslt_f16 4096x8192x2 ."; do
  set -- $x
  in_time 260 "ncu $1 $2" || continue
  { echo; echo "\$ $NCU --kernel-name regex:$3 pipegemm bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1"
    timeout 40 $NCU --kernel-name regex:$3 $PG bench --shape $2 --kernel $1 --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
note "done at $(( $(date +%s) - t0 ))s"
