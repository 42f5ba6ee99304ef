# Session 30: the split-K-over-a-cluster prototype (bench/micro/split_k_cluster.cu) on the LLM suite's
# small-M rows, where the best cuBLAS sits at ~55% of the copy bandwidth (128x4096x4096) and auto
# picks cuBLAS: each (BN, SPLIT) form beside cublasGemmEx and cuBLASLt's heuristic candidates in one
# process, same rotating buffers, back to back; every form checked against cuBLAS's D, the best one
# against the CPU and bit for bit over two runs. No library build (the prototype alone).
# Run: PIPEGEMM_PREBUILT=.none scripts/gpu_session.sh bench/jobs/s30_call1.sh   (carry .deps)
{ nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -o "$OUT/skc" bench/micro/split_k_cluster.cu \
    src/kernels/k5_tensor_map.cpp src/core/types.cpp -lcublas -lcublasLt -lcuda; echo "# nvcc exit $?"; } >> "$OUT/run.log" 2>&1
SMALL_M="128x4096x4096 128x6144x4096 128x4096x14336 128x8192x8192 128x10240x8192 128x8192x28672 128x28672x4096 128x57344x8192"
MID_M="64x4096x4096 64x8192x8192 256x4096x4096 16x4096x4096"
for t in bf16 f16; do
  in_time 420 "split-K cluster $t" || continue
  { echo "\$ split_k_cluster $t $SMALL_M $MID_M"; timeout 200 "$OUT/skc" $t $SMALL_M $MID_M; echo "# exit $?"; } >> "$OUT/run.log" 2>&1
done
rm -f "$OUT/skc"
note "done at $(( $(date +%s) - t0 ))s"
