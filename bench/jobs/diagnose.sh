# Issue 14 (next session): `pipegemm diagnose` on the H200 for the first time -- the seed kernel,
# k4 and k5 on the seed shape and on 8192^3, each verdict with its counters (text, then JSON for
# the README), and the ncu report itself kept, so `--from-csv` can classify it again offline.
for k in seed_f16_128x128x32_s3 k4_f16_256x128x64_s3 k5_f16_128x256x64_s4; do
  for s in 81920x256x256 8192x8192x8192; do
    pg diagnose --kernel $k --shape $s --dtype f16
    pg diagnose --kernel $k --shape $s --dtype f16 --json
  done
done
