# (A record of what ran in session 26: the prototype at that commit compiled alone; today it also needs
# -I src src/kernels/k5_tensor_map.cpp src/core/types.cpp, as bench/jobs/s26_wir2.sh does.)
# Session 26: the weight-in-registers prototype's time against M (K = 256 and 128), beside a memcpy of
# the same bytes each: the slope is the steady-state rate, the intercept the fixed start (W's 128 KB
# into every CTA's registers, the ring's first fill) -- which of the two keeps it under the copy.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s26_wir_scaling.sh
{ nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o "$OUT/wir" bench/micro/weight_in_registers.cu; echo "# nvcc exit $?"
  for shape in "20480 256" "40960 256" "81920 256" "163840 256" "327680 256" "65536 128" "131072 128" "262144 128" "524288 128"; do
    echo "\$ ./weight_in_registers $shape"; "$OUT/wir" $shape; echo "# exit $?"; done
  rm -f "$OUT/wir"; } >> "$OUT/run.log" 2>&1
echo "# done at $(( $(date +%s) - t0 ))s" >> "$OUT/run.log"
