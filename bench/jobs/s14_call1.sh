# Session 14, call 1: the checks planned after session 13 (the GPU tests it wrote, PDL on the memory suite, stream-K diagnose); its f16 fuzz is call 2 (build + fuzz do not fit 600 s).
# After session 13 (run it first in the next session): the GPU tests written in session 13 and not yet
# cuBLAS's own; both peers now refuse it), then programmatic dependent launch on / off
# ($PIPEGEMM_K5_PDL) on the memory-bound suite, burst and back to back, k5 and auto beside the best cuBLAS.
# Run: scripts/gpu_session.sh bench/jobs/s14_call1.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests 'K5Pdl.*:K5StreamK.*:GpuSemantics.Int8WithCApartNeverReachesCublasLt'
pg verify --shape 8x32x16136 --dtype f16 --acc f32 --out-dtype f32 --kernel auto cublaslt_f16_f32out k5_f16_f32out_128x256x64_s4
for pdl in 0 1; do
  PIPEGEMM_K5_PDL=$pdl pg bench --suite bench/suites/memory.txt --dtype f16 --kernel auto k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_b_resident \
     --reps 50 --rounds 2 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_f16_pdl${pdl}_burst.md"
  PIPEGEMM_K5_PDL=$pdl pg bench --suite bench/suites/memory.txt --dtype f16 --kernel k5_f16_128x256x64_s4 \
     --reps 50 --rounds 2 --output "$OUT/memory_f16_pdl${pdl}_b2b.md"
done
# Why a shared (stream-K) k_tile runs ~14% slower than a whole one (session 13, call 4): the L2 hit rate and the DRAM
# bytes of k5 against stream-K with its plan and with every unit shared, at 4096^3, one launch each under ncu.
for n in 0 256; do
  PIPEGEMM_K5_SK_UNITS=$n pg diagnose --kernel k5_f16_128x256x64_s4_streamk --shape 4096x4096x4096 --dtype f16 \
     --metric lts__t_sector_hit_rate.pct --metric dram__bytes_read.sum --metric lts__t_sectors.avg.pct_of_peak_sustained_elapsed
done
pg diagnose --kernel k5_f16_128x256x64_s4 --shape 4096x4096x4096 --dtype f16 \
   --metric lts__t_sector_hit_rate.pct --metric dram__bytes_read.sum --metric lts__t_sectors.avg.pct_of_peak_sustained_elapsed
