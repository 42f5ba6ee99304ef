# Session 26 (either card: correctness): (1) the register-resident weight's building blocks on their
# own (bench/micro/wgmma_rs_check.cu: wgmma with A from registers, stmatrix.trans; every element
# against the CPU, FP16 and BF16, N = 64 and 128); (2) the skinny GPU tests under compute-sanitizer
# memcheck after session 25's 16-byte tail.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_micro.sh   (.carry: the GPU tests only)
{ echo; echo "\$ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o wgmma_rs_check bench/micro/wgmma_rs_check.cu && ./wgmma_rs_check"
  nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o "$OUT/wgmma_rs_check" bench/micro/wgmma_rs_check.cu &&
    "$OUT/wgmma_rs_check"; echo "# exit $?"; rm -f "$OUT/wgmma_rs_check"; } >> "$OUT/run.log" 2>&1
gt_memcheck pipegemm_gpu_tests "Skinny*" 300
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
