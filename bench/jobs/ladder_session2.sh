# Issue 5 acceptance, session 2 (sourced by scripts/gpu_session.sh; gt/pg log to $OUT/run.log).
# After session 1: k2's STS kept after the MMAs (__syncwarp), raster group 16, a 4-warp
# 128x128 k4 config beside 128x256, k0 for int8 -> fp32, the odd-shape test expectations fixed.
gt pipegemm_gpu_tests 'GpuLadder.*'
pg bench --shape 8192x8192x8192 --kernel k4_f16_128x256x32_s4 --kernel k4_f16_128x128x32_s4 --kernel k4_f16_256x128x32_s4 --kernel k4_f16_128x256x32_s6 --kernel k4_seed_f32acc --reps 30
pg bench --shape 4096x4096x4096 --kernel k4_f16_128x256x32_s4 --kernel k4_f16_128x128x32_s4 --kernel k4_f16_256x128x32_s4 --kernel k4_f16_128x256x32_s6 --kernel k4_seed_f32acc --reps 50
pg bench --ladder --shape 4096x4096x4096 --dtype f16 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype f16 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype i8 --reps 50
pg bench --ladder --shape 81920x256x256 --dtype i8 --reps 200
pg bench --ladder --shape 4096x4096x4096 --dtype bf16 --reps 50
pg bench --ladder --shape 4096x4096x4096 --dtype f32 --reps 20
pg bench --ladder --shape 8192x8192x8192 --dtype f16 --reps 10
# The big shapes, every variant of each type combination (one combination per command).
for s in 4096x4096x4096 81920x256x256 4095x4097x255; do
  pg verify --shape $s --kernel all --dtype f16
  pg verify --shape $s --kernel all --dtype f16 --acc f16
  pg verify --shape $s --kernel all --dtype bf16 --out-dtype bf16
  pg verify --shape $s --kernel all --dtype i8 --acc i32 --out-dtype i32
  pg verify --shape $s --kernel all --dtype i8 --acc i32 --out-dtype f32
  pg verify --shape $s --kernel all --dtype f32 --out-dtype f32
done
for t in "f16" "bf16 --out-dtype bf16" "i8 --acc i32 --out-dtype i32" "i8 --acc i32 --out-dtype f32" "f32 --out-dtype f32"; do
  pg verify --shape 4095x4097x255 --kernel auto --dtype $t
done
# The ladder's kernels also build for sm_80 (the project's other architecture): compile every
# ladder .cu for arch 80 alone, ptxas spill warnings shown, and time it.
{
  echo; echo "\$ ladder objects for sm_80 (-j16)"
  t80=$(date +%s)
  cmake -S . -B build/sm80 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80 \
        -DPIPEGEMM_DEPS_DIR="$PWD/.deps" > /dev/null 2>&1
  objs=$(cd build/sm80 && ninja -t targets all | grep -oE 'CMakeFiles/pipegemm.dir/src/kernels/k[0-4]_[a-z0-9_]+\.cu\.o' | sort -u)
  timeout 150 ninja -C build/sm80 -j16 $objs 2>&1 | grep -E "error|warning|spill|FAILED" | head -20
  echo "# sm_80 ladder objects: rc=${PIPESTATUS[0]} in $(( $(date +%s) - t80 ))s"
} >> "$OUT/run.log" 2>&1
