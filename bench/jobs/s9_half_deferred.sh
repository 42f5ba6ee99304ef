# RECORD ONLY: the half-deferred general form this job measured was reverted (no gain: bias + GELU 1.040 vs 1.036
# before, bench/results/2026-12-02_h200_s9_call5_half_deferred.log); the kernel is at 0c1834f again.
# Session 9, call 4 (issue 13: bias + GELU <= 3% over no epilogue at 4096^3): k5's general form
# half-deferred -- the epilogue writes the first half of a tile's chunks and keeps the second half's
# fp32 values (64 registers) for the next tile's mainloop, which applies their activation under its
# first wgmma group and stores one chunk per k_tile. Then: the k5 and semantics GPU tests (every
# layout x type x beta x epilogue x batch through k5's general form), fuzz over the semantics, the
# epilogue's cost at 4096^3 (plain, bias, bias + GELU, beta C alternating three times; cuBLASLt with
# its own epilogue beside it) in both protocols and types, and the layouts suite (NN / NT / TT vs TN).
# Call 4 failed the semantics tests (the last tile of a CTA had its second half stored without its
# activation: no next mainloop applied it); call 5 is this job again, the sustained and layout
# runs left out (device time).
# Run: scripts/gpu_session.sh bench/jobs/s9_half_deferred.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5*:GpuSemantics.*'
pg verify --shape 1000x2040x4100 --layout NT --bias col --act gelu_tanh --beta 0.5 --c apart --kernel k5_f16_128x256x64_s4 --dtype f16
pg verify --shape 4095x4104x264 --bias row --act gelu_erf --batch 3 --broadcast b --kernel k5_bf16_128x256x64_s4 --dtype bf16 --out-dtype bf16
pg verify --shape 383x520x1000 --bias col --act relu --kernel k5_f16_f32out_128x256x64_s4 --dtype f16 --out-dtype f32
for t in f16 bf16; do
  pg bench --suite bench/suites/epilogue_cost.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 cublaslt_${t} --reps 30 --rounds 2 --idle-ms 25
done
pg fuzz --count 200 --dtype f16,bf16 --seed 20261204
