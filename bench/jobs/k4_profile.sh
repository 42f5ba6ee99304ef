# Issue 5, session 2 call 1: why k4 stops near 420 TFLOPS at 8192^3.
# (a) SM clock / power / throttle reasons sampled every 100 ms while k4 candidates and cuBLAS run;
# (b) ncu (--clock-control none) on one k4 launch and one cuBLAS launch: SOL, memory (L2), warp
#     stall reasons, scheduler; so L2 bandwidth, barrier stalls and clocks can be told apart.
S=8192x8192x8192
K4="--kernel k4_f16_128x256x32_s4 --kernel k4_f16_128x256x64_s3 --kernel k4_f16_128x256x64_s4 --kernel k4_f16_128x256x32_s3 --kernel k4_f16_256x128x64_s3 --kernel k4_f16_128x128x32_s4"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader -lms 100 > "$OUT/smi.log" 2>&1 &
SMI=$!
pg bench --shape $S $K4 --reps 30
kill $SMI
{ echo; echo "# nvidia-smi every 100 ms during the bench above (timestamp, SM MHz, W, C, event reasons)"; awk 'NR%3==1' "$OUT/smi.log"; } >> "$OUT/run.log"
NCU="ncu --clock-control none --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --metrics lts__t_bytes.sum.per_second,lts__t_sectors_srcunit_tex.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"
for v in k4_f16_128x256x32_s4 k4_f16_128x256x64_s3; do
  { echo; echo "\$ $NCU --kernel-name regex:$v pipegemm bench --shape $S --kernel $v --no-peers --reps 3 --warmup 3 --rounds 1"
    $NCU --kernel-name regex:$v --launch-skip 2 $PG bench --shape $S --kernel $v --no-peers --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
done
{ echo; echo "\$ $NCU --kernel-name regex:'sm90|xmma|cutlass' pipegemm bench --shape $S --kernel cublas_f32acc --reps 3 --warmup 3 --rounds 1"
  $NCU --kernel-name regex:'sm90|xmma|cutlass' --launch-skip 2 $PG bench --shape $S --kernel cublas_f32acc --reps 3 --warmup 3 --rounds 1 2>&1 | grep -v "^==PROF==" ; } >> "$OUT/run.log" 2>&1
