# Session 27: the general form's deferred stores again ($PIPEGEMM_K5_GENERAL_DEFER=1), now that the
# general kernels no longer carry session 19's L2 prefetch of C (session 21 measured DEFER=1 worse
# with it in the mainloop). Session 27's traces (call 4) put the general epilogue at 1.5 us with a
# bias and 2.4 us with bias + GELU against 0.26 us for the plain kernel's (deferred: packing only),
# both consumers' epilogues at once, the tensor cores idle meanwhile.
# (1) correctness with DEFER=1: verify of general cells (bias + GELU, beta C = D, NN / TT, batch,
#     partial tiles) and a fuzz of 400 problems a 16-bit type; (2) epilogue_cost at 4096^3, k5 only,
#     DEFER 0 / 1 in alternating processes (3 BF16 + 2 FP16 runs a setting), burst.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s27_defer.sh   (carry .carry: the CLI)
export PIPEGEMM_K5_GENERAL_DEFER=1
note "PIPEGEMM_K5_GENERAL_DEFER=1: verify and fuzz"
for t in "f16" "bf16 --out-dtype bf16"; do
  pg verify --shape 1000x1064x1000 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --bias col --act gelu_tanh
  pg verify --shape 4096x4096x4096 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --bias col --act gelu_tanh
  pg verify --shape 328x264x200 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --layout NN --beta 1 --c d --bias row --act relu
  pg verify --shape 520x776x1032 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --layout TT --alpha 0.5 --beta 2 --batch 3 --broadcast b
  pg verify --shape 264x520x2104 --kernel k5_${t%% *}_128x256x64_s4 --dtype $t --layout NT --bias col --act gelu_erf
done
fuzz_types 400 150 f16:2701 bf16:2702
unset PIPEGEMM_K5_GENERAL_DEFER
alternate_knob PIPEGEMM_K5_GENERAL_DEFER defer 3   # (call 5 ran this loop written out)
note "done at $(( $(date +%s) - t0 ))s"
