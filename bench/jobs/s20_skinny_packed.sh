# Session 20 (written in session 20, which was lent no device: run it after the s18/s19 jobs).
# Packed: (0) the pack copy's new form -- the K5Packed GPU tests, verify with every operand
# off 16 bytes, then the packed k5 beside cuBLAS on the misaligned shapes of the stored tables
# (the held-out table: 14304x8552x10868 packed 5.6 ms, cuBLASLt 11.1; the copy was estimated at ~1.8
# ms of the 5.6). Skinny: (1) The skinny GPU tests with the bank-conflict-free partials (partials.hpp: results
# must repeat bit for bit as before). (2) Tiny problems, where the stored tune table put the
# 32-row form 2-3x above the 8-row one (a fixed ~6 us): the three forms side by side, X = A (small
# M: the reads the swizzle fixed) and X = B, 16-byte and element loads, FP16, back to back.
# (3) Why the 32-row element form costs ~4 us more than its 16-byte form on 1x15x20: diagnose
# (ncu) of both forms on one launch each -- cycles, instructions, stall reasons.
# Run: scripts/gpu_session.sh bench/jobs/s20_skinny_packed.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5Packed*"
for t in "f16 --out-dtype f16:k5_f16_128x256x64_s4_packed" "bf16 --out-dtype bf16:k5_bf16_128x256x64_s4_packed" \
         "i8 --acc i32 --out-dtype i32:k5_i8_128x256x128_s4_packed"; do
  ty=${t%%:*}; k=${t#*:}
  pg verify --shape 1001x777x333 --dtype $ty --kernel $k --offset 3 --no-peers
  pg verify --shape 257x130x4100 --dtype $ty --kernel $k --lda 4103 --ldd 133 --offset 1 --no-peers
  pg verify --shape 3x2x1 --dtype $ty --kernel $k --offset 1 --no-peers
done
for s in 14304x8552x10868 6145x2246x5210 6622x1440x1482 562x4374x3654 4225x356x10876 2427x4288x196 8947x928x596 45x25x283; do
  if [ $(( $(date +%s) - t0 )) -gt 300 ]; then note "skipped packed bench $s: out of call time"; continue; fi
  pg bench --shape $s --dtype f16 --out-dtype f16 --kernel k5_f16_128x256x64_s4_packed cublas_f16 cublaslt_f16 \
     --reps 10 --rounds 2 --warmup 2
done
gt pipegemm_gpu_tests "Skinny*"
K="skinny_f16_8x32x256_w4 skinny_f16_16x32x256_w4 skinny_f16_32x32x128_w4 cublas_f16 cublaslt_f16"
# x_is_a (M small) 16-byte rows / element rows; x_is_b (N small) the same.
for s in 2x7x24 4x11918x8 16x4096x64 1x15x20 4x2x10 4x11918x4 7x24x2 11918x4x8 18x2x174 11918x4x4; do
  pg bench --shape $s --dtype f16 --out-dtype f16 --kernel $K --reps 50 --rounds 3 --warmup 5
done
# The 32-row form on decode weights (M = 17..32): the stored table has it at 1.4-2.3x the best cuBLAS
# (16x10240x8192: the 16-row form 50 us, the 32-row 91). Its k_tile is one 32-wide step (BK 128 over
# 4 warps), half the 16-row form's bytes in flight a warp. Two trial configs, built here only
# (variants.def edited on this machine, not committed; locally both compile without spills: BK 256
# 198 registers, 64 W rows a CTA 216): a warp's k_tile of two steps, or 64 W rows a CTA (X's L2
# reads halved).
cp src/registry/variants.def "$OUT/variants.def.orig"
sed -i 's/^PIPEGEMM_SKINNY(f16, 32, 32, 128, 4)$/&\nPIPEGEMM_SKINNY(f16, 32, 32, 256, 4)\nPIPEGEMM_SKINNY(f16, 32, 64, 128, 4)/' \
  src/registry/variants.def
note "trial skinny configs: $(grep -c '^PIPEGEMM_SKINNY(f16, 32' src/registry/variants.def) f16 32-row lines in variants.def"
cmake --build build/gpu -j 16 --target pipegemm_cli >> "$OUT/build.log" 2>&1; note "trial build rc=$?"
T="skinny_f16_32x32x128_w4 skinny_f16_32x32x256_w4 skinny_f16_32x64x128_w4"
for s in 32x4096x4096 24x8192x8192 32x28672x4096 17x10240x8192 32x1543x1 24x4096x130; do
  pg bench --shape $s --dtype f16 --out-dtype f16 --kernel skinny_f16_16x32x256_w4 $T \
     cublas_f16 cublaslt_f16 k5_f16_128x128x64_s6 --reps 20 --rounds 2 --warmup 3
done
for s in 32x4096x4096 17x1000x333; do pg verify --shape $s --dtype f16 --out-dtype f16 --kernel $T --no-peers; done
cp "$OUT/variants.def.orig" src/registry/variants.def && rm "$OUT/variants.def.orig"  # the tree as committed
for s in 1x15x20 1x15x24; do
  if [ $(( $(date +%s) - t0 )) -gt 480 ]; then note "skipped diagnose $s: out of call time"; continue; fi
  pg diagnose --kernel skinny_f16_32x32x128_w4 --shape $s --dtype f16 --out-dtype f16
  pg diagnose --kernel skinny_f16_16x32x256_w4 --shape $s --dtype f16 --out-dtype f16
done
