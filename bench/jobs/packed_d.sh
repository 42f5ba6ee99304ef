# Issue 5: D's own rule for k1..k4 (any ldd, D aligned to its element; lda/ldb keep the 16-byte
# vector rule). GPU ladder tests (333x517x272 and 127x129x33-like shapes now run on k1..k4 with
# packed D), the other GPU tests, CLI verify of every type on packed-D odd shapes, memcheck.
gt pipegemm_gpu_tests
for s in 127x129x40 1000x1001x1000 4095x4097x264; do verify_every_type $s; done
{ echo; echo "\$ compute-sanitizer --tool memcheck pipegemm verify --shape 127x129x40 --family <k1..k4> --dtype f16 --no-peers"
  for f in k1_smem_single k2_dbuf_ldg k3_dbuf_cp_async k4_multistage; do
    compute-sanitizer --tool memcheck --print-limit 5 $PG verify --shape 127x129x40 --family $f --dtype f16 --no-peers 2>&1 | grep -E "PASS|FAIL|refused|ERROR SUMMARY"
  done; } >> "$OUT/run.log" 2>&1
pg verify --shape 127x129x40 --kernel auto
pg list
