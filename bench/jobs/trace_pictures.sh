# The trace pictures of docs/trace/ (issue 14), for a job to source after build_traced
# (scripts/gpu_session.sh): the seed kernel, k4, k4 persistent, k5 and k5 B-resident on the seed
# shape, k5 on 4096^3 and ping-pong on 4096x4096x256 (one SM each), FP16, seed 20261202, each traced
# launch verified; the Perfetto JSON and SVG of each into /tmp/tr (copy the SVGs to docs/trace/).
# Alone: scripts/gpu_session.sh bench/jobs/trace_pictures.sh pipegemm_cli (it builds the traced CLI).
if [ "${TRACE_PICTURES_BUILT:-0}" != 1 ]; then build_traced; fi
mkdir -p /tmp/tr
for k in seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k4_f16_256x128x64_s3_persistent k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_b_resident; do
  pgt trace --kernel $k --shape 81920x256x256 --dtype f16 --seed 20261202 --out /tmp/tr/$k.json --svg /tmp/tr/$k.svg
done
pgt trace --kernel k5_f16_128x256x64_s4 --shape 4096x4096x4096 --dtype f16 --seed 20261202 --sms 1 \
    --out /tmp/tr/k5_4096.json --svg /tmp/tr/k5_f16_128x256x64_s4_4096.svg
pgt trace --kernel k5_f16_64x256x64_s4_pingpong --shape 4096x4096x256 --dtype f16 --seed 20261202 --sms 1 \
    --out /tmp/tr/pingpong_k256.json --svg /tmp/tr/k5_pingpong_4096x4096x256.svg
tar czf "$OUT/traces.tar.gz" -C /tmp/tr .
