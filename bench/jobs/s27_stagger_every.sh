# Session 27: the consumers' stagger set again at every unit ($PIPEGEMM_K5_STAGGER_EVERY=1; kernel.cuh,
# kStaggerBarrier) -- the traces of calls 4 and 6 found the first unit's lag gone by the second tile,
# both consumers' epilogues at once. (1) correctness with it: verify of plain and general cells, a
# fuzz of 400 problems a 16-bit type (stream-K forms included) and the k5 GPU tests; (2) epilogue_cost at 4096^3, k5 only,
# EVERY 0 / 1 in alternating processes (3 BF16 + 2 FP16 pairs), burst; (3) the compute suite,
# k5's 128x256 and cuBLAS, EVERY 0 / 1 alternating, burst.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s27_stagger_every.sh   (.carry: both binaries gzipped)
# The measurement first (the call may be cut short by the device time left), then correctness.
alternate_knob PIPEGEMM_K5_STAGGER_EVERY every 3
export PIPEGEMM_K5_STAGGER_EVERY=1
note "PIPEGEMM_K5_STAGGER_EVERY=1: verify and fuzz"
for t in "f16" "bf16 --out-dtype bf16"; do
  pg verify --shape 4096x4096x4096 --kernel k5_${t%% *}_128x256x64_s4 k5_${t%% *}_128x256x64_s4_streamk --dtype $t
  pg verify --shape 4096x4096x4096 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --bias col --act gelu_tanh
  pg verify --shape 1000x1064x3000 --kernel k5_${t%% *}_128x256x64_s4_streamk k5_${t%% *}_128x128x64_s6 --dtype $t
  pg verify --shape 520x776x1032 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --layout TT --alpha 0.5 --beta 2 --batch 3 --broadcast b
done
fuzz_types 400 150 f16:2711 bf16:2712
gt pipegemm_gpu_tests 'K5Verify.*:K5StreamK.*:K5Pdl.*:GpuSemantics.K5*'
unset PIPEGEMM_K5_STAGGER_EVERY
n=0
for e in 0 1 0 1; do
  n=$((n + 1))
  note "PIPEGEMM_K5_STAGGER_EVERY=$e (compute)"
  PIPEGEMM_K5_STAGGER_EVERY=$e pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 \
      --kernel k5_bf16_128x256x64_s4 cublas_bf16 --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_bf16_every${e}_$n.md"
done
note "done at $(( $(date +%s) - t0 ))s"
