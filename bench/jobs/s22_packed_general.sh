# Written in session 22 (no device was lent): issue 13's any-alignment path. The packed k5 form now
# copies each operand as it is stored (either layout, every product of a batch, a broadcast one once,
# product strides off 16 bytes too) and runs the general kernel, so every layout, alpha / beta / C
# (apart or in place), batch, bias and activation reach tensor-core speed at any alignment. Auto takes
# it for the plain TN GEMM only (Variant::auto_plain_only) until this job has verified the rest.
# (1) GPU tests: K5Packed.* (FullSemanticsAtAnyAlignment: layouts x C apart / in place x broadcasts,
# rows, pointers and strides off 16 bytes, 3 shapes incl. clusters) and GpuSemantics.* (its odd shape
# 37x53x71 runs the packed form on every cell it accepts); (2) verify of larger cells by name; (3) fuzz
# 2,000 f16 + 2,000 bf16 (every variant that takes a problem runs it, the packed form included);
# (4) what it buys: unaligned general problems, the packed k5 beside both cuBLAS peers and k0, burst.
# Read: run.log's verify PASS lines, the fuzz summaries, $OUT/packed_*.md (%cuBLAS column).
# Run: scripts/gpu_session.sh bench/jobs/s22_packed_general.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5Packed.*:GpuSemantics.*"
# Session 23: the beta C pair loads with an odd N (the packed form takes it) read one element past
# a row before c_pairs_aligned asked for an even N; memcheck on the test that reaches that path.
gt_memcheck pipegemm_gpu_tests "K5Packed.OddN*" 240
for t in f16 bf16; do
  K=k5_${t}_128x256x64_s4_packed
  pg verify --shape 1000x1001x1000 --dtype $t --out-dtype $t --kernel $K --layout NN --beta 1 --c d --ldd 1003 \
     --bias col --act gelu_tanh --offset 1 --no-peers
  pg verify --shape 2048x1544x2049 --dtype $t --out-dtype $t --kernel $K --layout TT --alpha 0.5 --beta -1 --ldc 1547 \
     --bias row --bias-dtype f32 --act relu --no-peers
  pg verify --shape 333x520x135 --dtype $t --out-dtype $t --kernel $K auto --layout NT --batch 3 --broadcast b \
     --beta 0.5 --c-dtype f32 --no-peers
  pg verify --shape 511x257x4095 --dtype $t --out-dtype $t --kernel $K auto --layout NT --batch 4 --broadcast a \
     --bias col --act gelu_erf --offset 3 --no-peers
done
fuzz_types 2000 300 f16:2201 bf16:2202
for t in f16 bf16; do
  K="k5_${t}_128x256x64_s4_packed cublas_$t cublaslt_$t k0_${t}_128x128x16"
  i=0
  for sem in "--shape 4096x4096x4095 --layout NN --bias col --act gelu_tanh" \
             "--shape 4096x4096x4095 --layout TN --beta 1 --c d" \
             "--shape 1000x1001x1000 --layout TT --bias col --bias-dtype f32" \
             "--shape 8192x1024x1027 --layout NT --batch 4 --broadcast b"; do
    i=$((i + 1))
    in_time 540 "packed $t $i" || continue
    pg bench $sem --dtype $t --out-dtype $t --kernel $K --reps 20 --rounds 2 --warmup 3 --idle-ms 25 \
       --max-ms-per-variant 100 --output "$OUT/packed_${t}_$i.md"
  done
done
