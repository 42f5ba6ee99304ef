# Issue 12's fuzz criterion: 10,000 problems per type with every variant in (session 8's s8 wgmma
# and ping-pong, session 9's B-resident), ~42 problems a second on the H200 (session 9): f16 and bf16
# here (~8 minutes), i8 and f32 in a second call (FUZZ_TYPES=i8,f32).
# Run: scripts/gpu_session.sh bench/jobs/s10_fuzz.sh pipegemm_cli
pg fuzz --count 10000 --dtype "${FUZZ_TYPES:-f16,bf16}" --seed 20261210
