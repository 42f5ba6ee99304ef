# Issue 14, items 1-2 (session 8): `pipegemm diagnose` after its first H200 run's fixes (cp.async
# read as coalesced, k5's short-K instantiation matched, the fill/drain rule, the top stall
# reasons) and the three teaching variants, each built to break one thing: verified, SASS-checked,
# then diagnosed (text, then JSON) beside the seed kernel, k4 and k5 on the seed shape and on
# 8192^3; last the GPU test that holds each teaching variant to its verdict (4096^3).
#   expected (8192^3, and 4096^3 in the test): _teach_uncoalesced -> uncoalesced access,
#             _teach_starved -> stage starvation, _teach_cliff -> occupancy collapse (on the seed
#             shape its 4 k_tiles a tile make it latency-bound); seed and k4 on 81920x256x256 ->
#             latency-bound (8 and 4 k_tiles a tile), k5 on it -> a report of its short-K kernel.
#   helperA's H200 calls before this one: bench/results/2026-12-01_h200_s8_helperA_teaching_probes.log
# Run: scripts/gpu_session.sh bench/jobs/s8_diagnose_teaching.sh pipegemm_cli pipegemm_gpu_tests
teaching="k2_f16_128x128x32_s2_teach_uncoalesced k4_f16_128x256x32_s2_teach_starved k4_f16_64x128x64_s5_teach_cliff"
kernels=""
for k in $teaching; do kernels="$kernels --kernel $k"; done
pg list
pg verify --shape 1000x1000x1000 $kernels --dtype f16   # one CPU reference per shape for the three
pg verify --shape 4096x4096x4096 $kernels --dtype f16
pg sass $kernels
for k in $teaching; do pg plan --kernel $k --shape 8192x8192x8192; done
for k in $teaching seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k5_f16_128x256x64_s4; do
  for s in 81920x256x256 8192x8192x8192; do
    pg diagnose --kernel $k --shape $s --dtype f16
    pg diagnose --kernel $k --shape $s --dtype f16 --json
  done
done
gt pipegemm_gpu_tests 'GpuDiagnose.*'
