# Written in session 24, when device calls kept failing to start: the one call that decides most,
# in order of what it settles. (1) the GPU tests of every form written without a device (sessions
# 22-23: the packed general form incl. odd N, the B-resident deep rings incl. grids that columns do
# not divide) and the semantics matrix; (2) issue 13's bias+GELU cost at 4096^3, 3 BF16 + 2 FP16 runs:
# the cooperative 128x256 k5 (its consumers' epilogue stops both tensor-core groups), the 64x256
# ping-pong (one consumer's epilogue runs under the other's mainloop), cuBLASLt with its own
# epilogue, and auto (what a user calls); (3) the memory suite in bursts, the B-resident deep rings
# beside the ring forms and both peers with each shape's same-bytes copy; (4) memcheck of the odd-N
# beta C path. Read: bench/results/semantics_collate.py --group s24 $OUT/epi_*_s24_run*.md;
# %copyBW of $OUT/memory_*_burst.md.
# Run: scripts/gpu_session.sh bench/jobs/s24_essentials.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5Packed.*:GpuSemantics.*:K5Verify.BResident*:K5Refusal.*"
note "tests done at $(( $(date +%s) - t0 ))s"
PIPEGEMM_K5_MAX_CTAS=130 gt pipegemm_gpu_tests "K5Verify.BResident*"
export EPI_KERNELS="k5_@_128x256x64_s4 k5_@_64x256x64_s4_pingpong cublaslt_@ auto"
for i in 1 2 3; do
  in_time 400 "epilogue_cost run $i" && epilogue_cost s24 $i
done
unset EPI_KERNELS
note "epilogue done at $(( $(date +%s) - t0 ))s"
for t in bf16 f16; do
  in_time 470 "the $t memory suite" || continue
  pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel k5_${t}_128x256x64_s4 \
     k5_${t}_128x256x64_s4_b_resident k5_${t}_128x256x64_s5_b_resident_k256 k5_${t}_128x256x64_s8_b_resident_k128 \
     k5_${t}_128x128x64_s10_b_resident_k128 k5_${t}_128x128x64_s8_b_resident_k256 cublas_$t cublaslt_$t \
     --reps 30 --rounds 2 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_${t}_burst.md"
done
in_time 520 "memcheck" && gt_memcheck pipegemm_gpu_tests "K5Packed.OddN*" 60
note "done at $(( $(date +%s) - t0 ))s"
