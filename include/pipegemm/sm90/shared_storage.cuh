// The shared memory of a Hopper GEMM CTA: the load ring, the epilogue's chunk buffers, the ring's
// mbarriers and the fused epilogue's bias rows, in this order.
#pragma once

#include <cstdint>

namespace pipegemm::sm90 {

// alignas(1024): the 128-byte swizzle repeats every 8 rows of 128 bytes, so each ring, the chunk
// buffers, and (by the sizes Sm90Gemm asserts) every slot and buffer inside them start on a
// swizzle period -- wgmma descriptor base offset 0.
template <class TA, int BM, int BN, int BK, int STAGES, int B_SLOTS, int CONSUMERS, int EPI_BUFS, int EPI_BUF_BYTES,
          int BIAS_BUFS>
struct SharedStorage {
  alignas(1024) TA a[STAGES][BM * BK];                          // (BM,BK,STAGES), 128B-swizzled (load_operand)
  alignas(1024) TA b[B_SLOTS][BN * BK];                         // (BN,BK,B_SLOTS): the ring's, or B-resident's k_tiles
  alignas(1024) uint8_t d[CONSUMERS][EPI_BUFS][EPI_BUF_BYTES];  // (64,128 B, kEpiBufs, kConsumers)
  uint64_t full[STAGES];                                        // mbarriers: slot landed
  uint64_t empty[STAGES];                                       // mbarriers: slot released
  // Fused epilogue: the tile's bias (per row: its BM rows; per column: its BN columns in
  // kBiasStride-padded quarters, bias_slot()); ping-pong: one per consumer (each its own tile).
  alignas(16) float bias[BIAS_BUFS][BN + 16];
};

// v, which the compiler can no longer derive from its source: what is computed from it is
// computed again where it is used rather than kept (see the wide tile's schedule in the consumers).
__device__ __forceinline__ int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}

}  // namespace pipegemm::sm90
