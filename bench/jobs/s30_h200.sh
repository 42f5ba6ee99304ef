# Session 30: the H200 queue's head, one call -- what closes or moves issues 12 and 13 on the card they
# name, with main's binaries (the halves default, the 128-row ping-pong forms; the general-defer knob
# is gone, so session 29's s29_h200.sh would time one setting twice): (1) the weight-in-registers
# prototype beside k5 and cuBLASLt on the memory-bound shapes (s27_wir3.sh); (2) the LLM suite through
# auto, back to back and burst, both types; (3) the memory-bound suite through auto with each shape's
# same-bytes memcpy, burst; (4) the epilogue cost at 4096^3 (k5 and cuBLASLt, burst: BF16 twice, FP16
# once); (5) the k5 and semantics GPU tests. The closing fuzz is s30_h200_fuzz.sh (~5 min).
# On any other card it stops at once.
# Read: $OUT/llm_*_auto.md, $OUT/memory_*_auto.md (%copyBW), semantics_collate.py $OUT/epi_*_s30h200_run*.md.
# Run: PIPEGEMM_PREBUILT=.carry scripts/gpu_session.sh bench/jobs/s30_h200.sh   (carry .carry)
if ! nvidia-smi -L | grep -q H200; then
  note "not an H200: nothing to run"
  return 0
fi
source bench/jobs/s27_wir3.sh
auto_suite bench/suites/llm.txt llm_b2b 250 --reps 20 --rounds 2 --warmup 3
auto_suite bench/suites/llm.txt llm_burst 300 --reps 20 --rounds 2 --warmup 3 --idle-ms 25
for t in f16 bf16; do
  in_time 360 "memory $t" && pg bench --suite bench/suites/memory.txt --dtype $t --out-dtype $t --kernel auto \
     --reps 40 --rounds 3 --idle-ms 25 --same-bytes-copy --output "$OUT/memory_${t}_auto.md"
done
for i in 1 2; do in_time 450 "epilogue cost $i" && epilogue_cost s30h200 $i 1; done
in_time 520 "GPU tests" && gt pipegemm_gpu_tests 'K5*:GpuSemantics.K5*'
note "done at $(( $(date +%s) - t0 ))s"
