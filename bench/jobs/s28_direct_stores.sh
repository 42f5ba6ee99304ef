# Session 28: the deferred tile stored straight from the registers (store_pending_step: a quad
# transpose, then one 16-byte st.global a thread a k_tile) instead of a chunk a k_tile through
# stmatrix + fence.proxy.async + two barriers + a TMA store -- session 27's traces had each of a
# tile's first four k_tiles at 1.10-1.19 us against 0.88-0.91 for the rest (the fence's
# MEMBAR.ALL.CTA waiting on the wgmma in flight, by the look of it), about the epilogue time the
# deferral saved. Two CLIs: NEW (branch s28-direct-stores, 08c2c3f, .carry) and OLD (main, .carry/old).
# (1) the measure first: epilogue_cost at 4096^3, k5 only, OLD / NEW / NEW with the general form
#     deferred ($PIPEGEMM_K5_GENERAL_DEFER=1) in alternating processes, burst (3 BF16 + 2 FP16 runs
#     each); the compute and memory suites OLD / NEW in turn, burst.
# (2) correctness of NEW: the k5 GPU tests (deferred plain, B-resident, packed), verify at partial
#     tiles and a partial 16-byte vector at the right edge (N % 8 != 0 through the packed form), the
#     general form with DEFER=1 (verify, its GPU tests), a fuzz of 150 (and 100 with DEFER=1) problems a 16-bit type.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s28_direct_stores.sh
#      (carry .carry: pipegemm.gz and tests/pipegemm_gpu_tests.gz new, old/pipegemm.gz old)
gunzip -f .carry/old/pipegemm.gz && chmod +x .carry/old/pipegemm
NEW=$PG
OLD=$PWD/.carry/old/pipegemm
note "NEW = $NEW, OLD = $OLD"
# as_cli WHICH DEFER CMD...: run CMD with PG set to that CLI and the general form's deferral at DEFER.
as_cli() {
  local which=$1 defer=$2
  shift 2
  PG=$([ "$which" = old ] && echo "$OLD" || echo "$NEW") PIPEGEMM_K5_GENERAL_DEFER=$defer "$@"
}
for i in 1 2 3; do
  for s in old:0 new:0 new:1; do
    EPI_KERNELS="k5_@_128x256x64_s4 --no-peers" as_cli "${s%%:*}" "${s##*:}" epilogue_cost "${s%%:*}_defer${s##*:}" "$i" 2
  done
done
for i in 1 2; do
  for w in old new; do
    note "compute suite, $w CLI, round $i"
    as_cli $w 0 pg bench --suite bench/suites/compute.txt --dtype bf16 --out-dtype bf16 \
        --kernel k5_bf16_128x256x64_s4 cublas_bf16 --reps 20 --rounds 2 --idle-ms 25 --output "$OUT/compute_bf16_${w}_$i.md"
  done
done
# The deeper B-resident rings (in the smem the chunk buffers held) where NEW has them.
DEEP=$("$NEW" list 2>/dev/null | grep -oE 'k5_f16_128x(256x64_s10_b_resident_k128|128x64_s12_b_resident_k128|256x64_s6_b_resident_k256)' | sort -u | tr '\n' ' ')
note "NEW's deeper B-resident forms: ${DEEP:-none}"
for w in old new; do
  note "memory suite, $w CLI"
  as_cli $w 0 pg bench --suite bench/suites/memory.txt --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4 \
      k5_f16_128x128x64_s6 k5_f16_128x256x64_s4_b_resident k5_f16_128x256x64_s8_b_resident_k128 \
      k5_f16_128x128x64_s10_b_resident_k128 k5_f16_128x256x64_s5_b_resident_k256 $([ $w = new ] && echo $DEEP) \
      cublaslt_f16 --reps 20 --rounds 2 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_f16_$w.md"
done
note "NEW: correctness"
in_time 330 "GPU tests" && gt pipegemm_gpu_tests 'K5*:GpuSemantics.K5*:GpuSemantics.LargeShapeThroughAuto'
for t in "f16" "bf16 --out-dtype bf16"; do
  in_time 400 "verify $t" || continue
  k=${t%% *}
  pg verify --shape 4096x4096x4096 --kernel k5_${k}_128x256x64_s4 k5_${k}_128x128x64_s6 --dtype $t
  pg verify --shape 1000x1064x3000 --kernel k5_${k}_128x256x64_s4 k5_${k}_128x128x64_s6 --dtype $t
  pg verify --shape 1000x1003x3000 --kernel k5_${k}_128x256x64_s4_packed --dtype $t
  pg verify --shape 777x1001x4095 --kernel k5_${k}_128x256x64_s4_packed --dtype $t --layout NN --bias col --act gelu_tanh
  pg verify --shape 81920x256x256 --kernel k5_${k}_128x256x64_s4_b_resident k5_${k}_128x256x64_s5_b_resident_k256 --dtype $t
  pg verify --shape 65536x128x128 --kernel k5_${k}_128x128x64_s10_b_resident_k128 --dtype $t
  export PIPEGEMM_K5_GENERAL_DEFER=1
  pg verify --shape 4096x4096x4096 --kernel k5_${k}_128x256x64_s4 --dtype $t --bias col --act gelu_tanh
  pg verify --shape 328x264x200 --kernel k5_${k}_128x256x64_s4 --dtype $t --layout NN --beta 1 --c d --bias row --act relu
  pg verify --shape 520x776x1032 --kernel k5_${k}_128x256x64_s4 --dtype $t --layout TT --alpha 0.5 --beta 2 --batch 3 --broadcast b
  pg verify --shape 777x1001x4095 --kernel k5_${k}_128x256x64_s4_packed --dtype $t --layout NT --bias row --act relu --batch 2
  unset PIPEGEMM_K5_GENERAL_DEFER
done
in_time 410 "GPU tests with DEFER=1" && PIPEGEMM_K5_GENERAL_DEFER=1 gt pipegemm_gpu_tests 'GpuSemantics.K5*:K5Packed.FullSemantics*:K5Packed.OddN*'
in_time 430 "fuzz" && fuzz_types 150 45 f16:2811 bf16:2812
in_time 470 "fuzz with DEFER=1" && PIPEGEMM_K5_GENERAL_DEFER=1 fuzz_types 100 35 f16:2813 bf16:2814
note "done at $(( $(date +%s) - t0 ))s"
