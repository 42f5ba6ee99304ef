# Written in session 21 (its device minutes were spent): issue 13's beta C cost. k5's general
# epilogue reads C's pairs in batches of 8 n8 blocks -- four rounds of L2 latency a 64x256
# consumer tile while the tensor cores idle; beta 1, C = D costs 1.071-1.075 of plain at 4096^3
# where cuBLASLt's costs nothing measurable (bench/results/2026-12-05_h200_s21_call1_*). Batches of
# 16 and 32 blocks (two rounds, one) compile without spills (ptxas -v, session 21). (1) the default
# build (8) as pg8, then the Hopper objects rebuilt with -DPIPEGEMM_K5_C_GROUP=16 and 32 (only they
# rebuild) as pg16, pg32; (2) each verified on beta C shapes (every layout, C apart / in place, an
# f32 C, partial tiles) and fuzzed; (3) epilogue_cost in alternating processes, 3 BF16 + 2 FP16 runs
# each. Read: bench/results/semantics_collate.py --group 'g[0-9]+' $OUT/epi_*_g*_run*.md.
# (0) first the k5 and semantics GPU tests of the tree as committed (session 21 removed the L2
# prefetch of C: the general kernels are session 17's machine code again, by cuobjdump).
# Run: scripts/gpu_session.sh bench/jobs/s21_c_group.sh pipegemm_cli pipegemm_gpu_tests
gt pipegemm_gpu_tests "K5*:GpuSemantics.*:Skinny*"
cp "$BUILD/pipegemm" "$PWD/pg8"
for g in 16 32; do
  cmake -S . -B $BUILD -DPIPEGEMM_K5_C_GROUP=$g >> "$OUT/build.log" 2>&1 &&
    cmake --build $BUILD -j 16 --target pipegemm_cli >> "$OUT/build.log" 2>&1
  rc=$?; note "rebuilt with PIPEGEMM_K5_C_GROUP=$g: rc=$rc at $(( $(date +%s) - t0 ))s"
  [ $rc -eq 0 ] && cp "$BUILD/pipegemm" "$PWD/pg$g"  # a failed build leaves no pg$g: its runs are skipped
done
cmake -S . -B $BUILD -DPIPEGEMM_K5_C_GROUP= >> "$OUT/build.log" 2>&1  # the build dir as committed
for g in 8 16 32; do
  [ -x "$PWD/pg$g" ] || { note "no pg$g: skipped"; continue; }
  PG=$PWD/pg$g; note "C group $g"
  for t in "bf16 --out-dtype bf16:k5_bf16_128x256x64_s4" "f16 --out-dtype f16:k5_f16_128x128x64_s6" \
           "f16 --out-dtype f32:k5_f16_f32out_128x256x64_s4"; do
    ty=${t%%:*}; k=${t#*:}
    for l in TN NT; do
      pg verify --shape 1000x1000x520 --dtype $ty --kernel $k --layout $l --beta 1 --c d --bias col --act gelu_tanh --no-peers
      pg verify --shape 333x520x136 --dtype $ty --kernel $k --layout $l --alpha 0.5 --beta -1 --batch 3 --no-peers
    done
    pg verify --shape 4096x2048x520 --dtype $ty --kernel $k --beta 0.5 --c-dtype f32 --no-peers
  done
  pg fuzz --count 300 --dtype f16,bf16 --seed 2026121$g
done
for i in 1 2 3; do
  for g in 8 16 32; do
    [ -x "$PWD/pg$g" ] || continue
    if [ $(( $(date +%s) - t0 )) -gt 560 ]; then note "skipped epilogue_cost run $i g$g: out of call time"; continue; fi
    PG=$PWD/pg$g; epilogue_cost g$g $i
  done
done
rm -f "$PWD"/pg8 "$PWD"/pg16 "$PWD"/pg32
