# Issue 5, session 2 call 2: k4 at 8192^3 -- candidates side by side, then the clock each one
# holds when run alone for ~1 s (nvidia-smi every 100 ms, phases marked), then ncu
# (--clock-control none) on two k4 configs and cuBLAS: HMMA pipe use, L2, warp stall reasons.
S=8192x8192x8192
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms 100 > "$OUT/smi.log" 2>&1 &
SMI=$!
mark() { echo "# MARK $1 $(date +%Y/%m/%d\ %H:%M:%S.%3N)" >> "$OUT/smi.log"; }
mark candidates
pg bench --shape $S --kernel k4_f16_128x256x32_s4 --kernel k4_f16_128x256x32_s4_ni --kernel k4_f16_256x128x64_s3 --kernel k4_f16_256x128x64_s3_ni --kernel k4_f16_128x256x64_s3 --kernel k4_f16_128x256x32_s3 --reps 30
for v in k4_f16_128x256x32_s4 k4_f16_256x128x64_s3_ni cublas_f32acc; do
  sleep 3; mark "alone_$v"
  pg bench --shape $S --kernel $v --no-peers --reps 400 --warmup 20 --rounds 1
done
mark end
kill $SMI
{ echo; echo "# nvidia-smi every 100 ms (timestamp, SM MHz, W, C, event reasons), phases marked"; cat "$OUT/smi.log"; } >> "$OUT/run.log"
NCU="ncu --clock-control none --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis --metrics lts__t_bytes.sum.per_second,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for v in k4_f16_128x256x32_s4 k4_f16_256x128x64_s3_ni; do
  { echo; echo "\$ $NCU --kernel-name regex:k4_multistage pipegemm bench --shape $S --kernel $v --no-peers --reps 3 --warmup 3 --rounds 1"
    $NCU --kernel-name regex:k4_multistage $PG bench --shape $S --kernel $v --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
{ echo; echo "\$ $NCU --kernel-name regex:'sm90|nvjet|xmma' pipegemm bench --shape $S --kernel cublas_f32acc --reps 3 --warmup 3 --rounds 1"
  $NCU --kernel-name regex:'sm90|nvjet|xmma' $PG bench --shape $S --kernel cublas_f32acc --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
