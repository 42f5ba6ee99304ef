# Issue 14 item 3: `pipegemm trace` on the H200 for the first time -- a traced build of its own
# (build/trace, -DPIPEGEMM_TRACE=ON, only the CLI), then the seed kernel, k4 and k4 persistent on
# the seed shape: each traced launch verified against the CPU reference, its Perfetto JSON (all
# in traces_json.tar.gz: $OUT holds 8 files at most) and its SVG timeline ($OUT/<variant>.svg:
# copied as they are to docs/trace/, where the README shows them), then `verify` of the same
# kernels from the traced binary (untraced launches).
# (Written in session 8 before k5 had stamps; session 9 stamped k5 and ran bench/jobs/s9_trace_k5.sh instead.)
# The session's own build ($BUILD) is not used: `scripts/gpu_session.sh bench/jobs/s8_trace.sh
# pipegemm_sass_fixtures` keeps it to almost nothing.
build_traced  # scripts/gpu_session.sh: build/trace, and pgt to run it
mkdir -p "$OUT/json"
TRACED="seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k4_f16_256x128x64_s3_persistent k5_f16_128x256x64_s4"
for k in $TRACED; do
  pgt trace --kernel $k --shape 81920x256x256 --dtype f16 --seed 20261201 --out "$OUT/json/$k.json" --svg "$OUT/$k.svg"
done
# A second k4 run: how much the numbers move from launch to launch.
pgt trace --kernel k4_f16_256x128x64_s3 --seed 20261201 --json --out "$OUT/json/k4_again.json" --svg "$OUT/json/k4_again.svg"
pgt verify --shape 81920x256x256 --kernel $TRACED --no-peers --seed 20261201
tar czf "$OUT/traces_json.tar.gz" -C "$OUT/json" . && rm -rf "$OUT/json"
