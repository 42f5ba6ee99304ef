# SM clock / power trace (nvidia-smi dmon, 1 s) while k4 runs 8192^3 (is the 401-vs-484 spread
# throttling?), then the six-shape k5 bench with the default variants (K <= 512 route included).
nvidia-smi dmon -s pc -d 1 > "$OUT/dmon.log" 2>&1 &
DMON=$!
pg bench --shape 8192x8192x8192 --kernel k4_f16_128x256x32_s4 --reps 40
sleep 2
for s in 4096x4096x4096 6144x6144x6144 8192x8192x8192 16384x1024x4096 8192x28672x4096 4096x4096x256; do
  pg bench --shape $s --kernel k5_ws_tma_wgmma_f16 --kernel k5_ws_tma_wgmma_bf16 --reps 40
done
kill $DMON
{ echo; echo "# nvidia-smi dmon -s pc -d 1 during the runs above"; cat "$OUT/dmon.log"; } >> "$OUT/run.log"
