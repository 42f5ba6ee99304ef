# Session 9, call 1 (issues 14, 16, 12): `pipegemm trace` on the H200 for the first time, k5's stamps
# included -- a traced build of its own (build/trace, -DPIPEGEMM_TRACE=ON, the CLI only): the seed
# kernel, k4, k4 persistent and k5 on the seed shape (the README's pictures), k5 on 4096^3 and
# ping-pong on 4096x4096x256 and 4096^3 (one SM each); every traced launch verified against the
# CPU reference, its Perfetto JSON (traces_json.tar.gz) and its SVG ($OUT/*.svg -> docs/trace/).
# Then, from the normal build ($BUILD): diagnose of the cooperative k5 and ping-pong at 4096^3
# (why ping-pong loses on long K), and fuzz with the session-8 variants (s8 wgmma, ping-pong) in.
# Run: scripts/gpu_session.sh bench/jobs/s9_trace_k5.sh pipegemm_cli
build_traced  # scripts/gpu_session.sh: build/trace, and pgt to run it
mkdir -p "$OUT/json"
SEEDSHAPE="seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k4_f16_256x128x64_s3_persistent k5_f16_128x256x64_s4"
for k in $SEEDSHAPE; do
  pgt trace --kernel $k --shape 81920x256x256 --dtype f16 --seed 20261202 --out "$OUT/json/$k.json" --svg "$OUT/$k.svg"
done
pgt trace --kernel k5_f16_128x256x64_s4 --shape 4096x4096x4096 --dtype f16 --seed 20261202 --sms 1 \
    --out "$OUT/json/k5_4096.json" --svg "$OUT/k5_f16_128x256x64_s4_4096.svg"
pgt trace --kernel k5_f16_64x256x64_s4_pingpong --shape 4096x4096x256 --dtype f16 --seed 20261202 --sms 1 \
    --out "$OUT/json/pingpong_k256.json" --svg "$OUT/k5_pingpong_4096x4096x256.svg"
pgt trace --kernel k5_f16_64x256x64_s4_pingpong --shape 4096x4096x4096 --dtype f16 --seed 20261202 --sms 1 --json \
    --out "$OUT/json/pingpong_4096.json" --svg "$OUT/json/pingpong_4096.svg"
pgt trace --kernel k5_f16_128x256x64_s4 --shape 4096x4096x256 --dtype f16 --seed 20261202 --sms 1 --json \
    --out "$OUT/json/k5_k256.json" --svg "$OUT/json/k5_k256.svg"
# A second k4 run: how much the numbers move from launch to launch.
pgt trace --kernel k4_f16_256x128x64_s3 --seed 20261203 --json --out "$OUT/json/k4_again.json" --svg "$OUT/json/k4_again.svg"
pgt verify --shape 81920x256x256 --kernel $SEEDSHAPE --no-peers --seed 20261202
tar czf "$OUT/traces_json.tar.gz" -C "$OUT/json" . && rm -rf "$OUT/json"
# Why ping-pong loses on long K: the profiler's counters of both schedules, one launch each.
for k in k5_f16_128x256x64_s4 k5_f16_64x256x64_s4_pingpong; do
  pg diagnose --kernel $k --shape 4096x4096x4096 --dtype f16 --json
done
pg fuzz --count 700 --dtype f16,bf16,i8,f32 --seed 20261202
