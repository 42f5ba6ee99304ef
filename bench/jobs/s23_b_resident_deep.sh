# Written in session 23 (no device was lent): issue 12's memory-bound criterion (80% of the copy
# bandwidth, the seed shape 85%; auto at ~76% and ~66-69%). The H200 trace of session 9 puts the
# limit in A's loads: ~3 us from issue to landing, 2.5 of the 4-stage ring's k_tiles in flight on
# average (docs/trace/k5_f16_128x256x64_s4_b_resident.svg) -- ~40 KB of A a SM, ~1.7 TB/s. The
# B-resident forms with B's k_tiles apart from the ring spend the smem on A instead:
#   k5_*_128x256x64_s8_b_resident_k128   8 stages of A (128 KB) beside B's 2 k_tiles: 131072x256x128
#   k5_*_128x128x64_s10_b_resident_k128 10 stages of A (160 KB) beside B's 2:          65536x128x128
#   k5_*_128x256x64_s5_b_resident_k256   5 stages, 1 chunk buffer a consumer:          81920x256x256
#   k5_*_128x128x64_s8_b_resident_k256   8 stages beside one column's B (64 KB):        81920x256x256
# (a B-resident CTA keeps the B of one column of tiles: N up to 4 BN, A read by each column once
# from DRAM, then from L2 as the CTAs of a row of tiles read it at about the same time)
# (1) their GPU tests (every B-resident variant on tall-skinny and partial-tile shapes), verify on
# the suite's shapes; (2) the memory-bound suite in bursts with each shape's same-bytes memcpy,
# beside the ring forms auto takes today and both peers, FP16 and BF16; (3) tune of the suite into a
# copy of the table (the 4-stage B-resident is tuned-only, the new forms opted in) and auto with it.
# Read: %copyBW of $OUT/memory_*_burst.md; $OUT/memory_*_auto.md against s15's 76.1 / 65.7 / 75.4 / 69.0.
# Run: scripts/gpu_session.sh bench/jobs/s23_b_resident_deep.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5Verify.BResident*:K5Refusal.BResident*"
# Grids that 2-4 columns of tiles do not divide (130 -> 130 / 129 / 128 CTAs) and a grid of n_tiles CTAs.
PIPEGEMM_K5_MAX_CTAS=130 gt pipegemm_gpu_tests "K5Verify.BResident*"
PIPEGEMM_K5_MAX_CTAS=2 gt pipegemm_gpu_tests "K5Verify.BResident*"
for t in f16 bf16; do
  pg verify --shape 81920x256x256 --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s5_b_resident_k256 --no-peers
  pg verify --shape 131072x256x128 --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s8_b_resident_k128 --no-peers
  pg verify --shape 65536x128x128 --dtype $t --out-dtype $t --kernel k5_${t}_128x128x64_s10_b_resident_k128 --no-peers
  pg verify --shape 81920x256x256 --dtype $t --out-dtype $t --kernel k5_${t}_128x128x64_s8_b_resident_k256 --no-peers
done
for t in f16 bf16; do
  in_time 360 "the $t memory suite" || continue
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 k5_${t}_128x128x64_s6 \
     k5_${t}_128x256x64_s4_b_resident k5_${t}_128x256x64_s5_b_resident_k256 k5_${t}_128x256x64_s8_b_resident_k128 \
     k5_${t}_128x128x64_s10_b_resident_k128 k5_${t}_128x128x64_s8_b_resident_k256 cublas_$t cublaslt_$t --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy \
     --output "$OUT/memory_${t}_burst.md"
done
# The _k forms run by name until verified (the GPU test above): opted into this tune and auto.
export PIPEGEMM_AUTO_ALSO=$(for t in f16 bf16; do printf '%s,' k5_${t}_128x256x64_s8_b_resident_k128 \
  k5_${t}_128x128x64_s10_b_resident_k128 k5_${t}_128x256x64_s5_b_resident_k256 \
  k5_${t}_128x128x64_s8_b_resident_k256; done)
export PIPEGEMM_AUTO_ALSO=${PIPEGEMM_AUTO_ALSO%,}
note "PIPEGEMM_AUTO_ALSO=$PIPEGEMM_AUTO_ALSO"
tune_copy bench/suites/memory.txt 470
auto_suite bench/suites/memory.txt memory 540 --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy
