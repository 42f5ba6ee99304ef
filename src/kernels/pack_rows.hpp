// One warp's chunk of the pack copy (pack.cu's copy_rows): between the caller's matrix, of any
// alignment, and the stream-ordered workspace. Plain C++, host and device: the CPU test runs it
// over whole matrices behind a guard page.
//
// Lane l of the warp moves elements 32 j + l (j < kCopyUnroll) of a 32 x kCopyUnroll-element chunk
// of a row: every load and every store instruction is 32 consecutive elements across the warp --
// coalesced on both sides at any alignment -- and all of a lane's loads are in flight before its
// first store. The first form copied one element a thread with a block per 256 elements of a row:
// 615 thousand blocks for A of 14304x8552x10868, whose packed GEMM took 5.6 ms where its kernel at
// the aligned rate takes ~3.8 (H200, bench/results/evidence/random_heldout_tune_h200.json; the
// copy's share is that estimate, not a measurement). A 16-byte vector a lane on the workspace side
// was the other choice: its caller-side element stores, 16 bytes apart across the lanes, would
// write 2 bytes of each of 32 sectors per instruction.
#pragma once

#include <cstdint>

#include "pipegemm/detail/host_device.hpp"

namespace pipegemm::detail {

// Elements a lane moves per chunk: 32 bytes' worth (a warp's chunk is 1 KB).
template <class E>
constexpr int copy_unroll() {
  return 32 / int(sizeof(E));
}

// Chunk q of row r, lane `lane`: columns q * 32 U + lane + 32 j below `cols`, nothing else read or
// written (past `cols` lies memory of the caller, or the workspace row's padding, which no kernel
// reads).
template <class E>
PIPEGEMM_HOST_DEVICE void copy_chunk(E* dst, int64_t ldd, const E* src, int64_t lds, int64_t cols, int64_t r, int64_t q,
                                     int lane) {
  constexpr int U = copy_unroll<E>();
  const int64_t c0 = q * 32 * U + lane;
  const E* s = src + r * lds;
  E* d = dst + r * ldd;
  E v[U];
  if (c0 + 32 * (U - 1) < cols) {  // the lane's whole chunk inside the row: no predicates, so all
#pragma unroll                      // U loads issue before the first store (a predicate each would
    for (int j = 0; j < U; ++j) v[j] = s[c0 + 32 * j];  // cap them at the 7 predicate registers)
#pragma unroll
    for (int j = 0; j < U; ++j) d[c0 + 32 * j] = v[j];
    return;
  }
#pragma unroll
  for (int j = 0; j < U; ++j) {
    const int64_t c = c0 + 32 * j;
    v[j] = c < cols ? s[c] : E(0);
  }
#pragma unroll
  for (int j = 0; j < U; ++j) {
    const int64_t c = c0 + 32 * j;
    if (c < cols) d[c] = v[j];
  }
}

// A row's chunks.
template <class E>
PIPEGEMM_HOST_DEVICE int64_t copy_chunks(int64_t cols) {
  constexpr int64_t per = 32 * copy_unroll<E>();
  return (cols + per - 1) / per;
}

}  // namespace pipegemm::detail
