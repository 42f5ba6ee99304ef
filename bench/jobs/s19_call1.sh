# Session 19, call 1 (written in session 19, which was lent no device: run it first next session).
# Issue 13's last criterion (bias + GELU <= 3% over no epilogue at 4096^3) with the two general-form
# changes of session 19: C's lines prefetched into L2 under the mainloop (always on), and the
# general form's deferred stores ($PIPEGEMM_K5_GENERAL_DEFER=1, off by default until this call).
# (1) correctness of the deferred general form first: the semantics and k5 GPU tests and verify on
#     shapes with several tiles per CTA (pending tiles across work items, products) and a short K
#     (the flush before the epilogue), every layout, beta C = D, bias + GELU, batch 3 broadcast;
#     fuzz 300 f16/bf16 with it on. (2) the epilogue_cost suite, burst, in alternating processes
#     DEFER=0 / DEFER=1 (5 + 5 BF16, 2 + 2 FP16): each run's semantics_cost table is the measure;
#     beta C's row shows what the L2 prefetch bought (session 17: 1.068).
# Run: scripts/gpu_session.sh bench/jobs/s19_call1.sh pipegemm_cli pipegemm_gpu_tests
# Read: bench/results/semantics_collate.py <the epi_*_defer*_run*.md files> -- per setting, the median
# of the runs' "x plain" and their range.
export PIPEGEMM_K5_GENERAL_DEFER=1; note "PIPEGEMM_K5_GENERAL_DEFER=1 (correctness of the deferred general form)"
gt pipegemm_gpu_tests "GpuSemantics.VerifyMatrix*:GpuSemantics.K5Every*:K5Verify.Fp16*:K5Verify.Bf16*:K5Refusal.RefusedLaunchWritesNothing"
# Session 20's two changes in auto's default paths (no device lent then): skinny's partials layout,
# the pack copy's new form.
gt pipegemm_gpu_tests "Skinny*:K5Packed*"
# 4096x2048x520: 256 tiles (several a CTA: pending tiles across work items); 2000x3000x136 and
# 1000x1000x64: fewer k_tiles than chunks (the flush before the epilogue).
for t in "bf16 --out-dtype bf16:k5_bf16_128x256x64_s4" "f16 --out-dtype f16:k5_f16_128x256x64_s4"; do
  ty=${t%%:*}; k=${t#*:}
  for l in TN NN NT TT; do
    pg verify --shape 4096x2048x520 --dtype $ty --kernel $k --layout $l --beta 1 --c d --bias col --act gelu_tanh --no-peers
  done
  for l in TN NN; do
    pg verify --shape 4096x2048x520 --dtype $ty --kernel $k --layout $l --alpha 0.5 --beta -1 --bias row --act relu \
       --batch 3 --broadcast b --no-peers
  done
  for s in 4096x2048x520 2000x3000x136 1000x1000x64; do
    pg verify --shape $s --dtype $ty --kernel $k --d-layout col --beta 0.5 --c-dtype f32 --bias col --bias-dtype f32 \
       --act gelu_erf --no-peers
  done
  for s in 2000x3000x136 1000x1000x64; do
    pg verify --shape $s --dtype $ty --kernel $k --layout NT --beta 1 --c d --bias col --act gelu_tanh --batch 3 --no-peers
  done
done
pg fuzz --count 300 --dtype f16,bf16 --seed 20261219
unset PIPEGEMM_K5_GENERAL_DEFER
# (2) alternating processes: DEFER off / on, BF16 five times each, FP16 twice each.
for i in 1 2 3 4 5; do
  for d in 0 1; do
    if [ $(( $(date +%s) - t0 )) -gt 540 ]; then note "skipped epilogue_cost run $i defer $d: out of call time"; continue; fi
    export PIPEGEMM_K5_GENERAL_DEFER=$d; note "epilogue_cost bf16 run $i: PIPEGEMM_K5_GENERAL_DEFER=$d"
    pg bench --suite bench/suites/epilogue_cost.txt --dtype bf16 --out-dtype bf16 \
       --kernel k5_bf16_128x256x64_s4 cublaslt_bf16 --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_bf16_defer${d}_run$i.md"
    if [ $i -le 2 ]; then
      note "epilogue_cost f16 run $i: PIPEGEMM_K5_GENERAL_DEFER=$d"
      pg bench --suite bench/suites/epilogue_cost.txt --dtype f16 --out-dtype f16 \
         --kernel k5_f16_128x256x64_s4 cublaslt_f16 --reps 30 --rounds 2 --idle-ms 25 --output "$OUT/epi_f16_defer${d}_run$i.md"
    fi
  done
done
unset PIPEGEMM_K5_GENERAL_DEFER
