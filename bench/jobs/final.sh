# Lead's final integration run: the whole GPU suite on the integrated tree, then the k5 K<=512
# routing (deferred-store path) changed after the Hopper calls, verified and timed.
gt pipegemm_gpu_tests
pg verify --shape 4096x4096x256 --dtype f16 --kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_f16_f32out
pg verify --shape 4095x4104x264 --dtype bf16 --kernel k5_ws_tma_wgmma_bf16 --kernel k5_ws_tma_wgmma_bf16_f32out
pg verify --shape 81920x256x256 --dtype f16 --kernel k5_ws_tma_wgmma_f16
pg bench --shape 4096x4096x256 --kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_f16_nocluster --reps 100
pg bench --shape 4096x4096x256 --kernel k5_ws_tma_wgmma_bf16 --kernel k5_ws_tma_wgmma_bf16_nocluster --reps 100
pg bench --shape 81920x256x256 --kernel k5_ws_tma_wgmma_f16 --kernel k4_f16_128x256x32_s4 --kernel k4_seed_f32acc --reps 100
