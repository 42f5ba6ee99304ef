# Session 18, call 3 (written in session 18, which was lent no device: run it in a later session).
# Issue 12's memory-bound criterion on the one shape where 80% of the copy bandwidth is below what a
# copy of the same bytes reaches (131072x256x128: memcpy 87.9%, k5 75.4-77.0%), and the seed shape
# (81920x256x256: memcpy 85.0%, k5 76.1%): the k5 launch knobs that exist, one at a time, burst, each
# beside best cuBLAS and the same-bytes copy in its own run -- the persistent grid's size
# ($PIPEGEMM_K5_MAX_CTAS), the band height ($PIPEGEMM_K5_RASTER_GROUP), PDL off, and the tile variants
# (128x256, its no-cluster twin, 128x128, B-resident).
# Run: scripts/gpu_session.sh bench/jobs/s18_call3.sh pipegemm_cli
ks="k5_f16_128x256x64_s4 k5_f16_128x256x64_s4_nocluster k5_f16_128x128x64_s6 k5_f16_128x256x64_s4_b_resident"
run() { pg bench --shape "$1" --dtype f16 --out-dtype f16 --kernel $ks --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy; }
for s in 131072x256x128 81920x256x256; do
  note "defaults"; run $s
  for n in 128 120 112 66; do export PIPEGEMM_K5_MAX_CTAS=$n; note "PIPEGEMM_K5_MAX_CTAS=$n"; run $s; done
  unset PIPEGEMM_K5_MAX_CTAS
  for g in 4 64; do export PIPEGEMM_K5_RASTER_GROUP=$g; note "PIPEGEMM_K5_RASTER_GROUP=$g"; run $s; done
  unset PIPEGEMM_K5_RASTER_GROUP
  export PIPEGEMM_PDL=0; note "PIPEGEMM_PDL=0"; run $s; unset PIPEGEMM_PDL
  note "defaults again"; run $s
done
