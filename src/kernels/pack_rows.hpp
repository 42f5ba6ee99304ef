// One chunk of the pack copy (pack.cu's copy_rows): V = 16 / sizeof(E) elements of row r from
// column V q, between the stream-ordered workspace -- 16-byte-aligned rows of whole 16-byte
// vectors -- and the caller's matrix, of any alignment. The workspace side moves as one 16-byte
// vector, the caller's side element by element and only below `cols`. Plain C++, host and
// device: the CPU test runs these over whole matrices (and checks the vectors' alignment, which
// the GPU would fault on).
//
// Why vectors: the first form copied one element a thread, a block per 256 elements of a row --
// 615 thousand blocks for A of 14304x8552x10868 -- and moved ~0.55 TB/s (its 5.6 ms packed GEMM
// against a ~3.8 ms kernel; bench/results/2026-12-04_h200_s16_call2_heldout_tune.json).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "pipegemm/detail/host_device.hpp"

namespace pipegemm::detail {

struct alignas(16) Vec16 {
  uint32_t w[4];
};

PIPEGEMM_HOST_DEVICE Vec16 load16(const void* p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const Vec16*>(p);
#else
  if (reinterpret_cast<uintptr_t>(p) % 16) std::abort();  // the GPU would fault: fail the CPU test as loudly
  Vec16 v;
  std::memcpy(&v, p, 16);
  return v;
#endif
}

PIPEGEMM_HOST_DEVICE void store16(void* p, const Vec16& v) {
#if defined(__CUDA_ARCH__)
  *static_cast<Vec16*>(p) = v;
#else
  if (reinterpret_cast<uintptr_t>(p) % 16) std::abort();
  std::memcpy(p, &v, 16);
#endif
}

// kIntoWorkspace: src is the caller's matrix, dst the workspace; else the other way round.
// Reading the caller's side stops at `cols` (zeros past it, into the workspace row's padding, which
// no kernel reads); reading the workspace side takes its whole vector (the padding past cols is
// read, never stored).
template <class E, bool kIntoWorkspace>
PIPEGEMM_HOST_DEVICE Vec16 load_chunk(const E* src, int64_t lds, int64_t cols, int64_t r, int64_t q) {
  constexpr int V = 16 / int(sizeof(E));
  const int64_t c0 = q * V;
  const E* s = src + r * lds + c0;
  if constexpr (kIntoWorkspace) {
    E e[V];
#pragma unroll
    for (int i = 0; i < V; ++i) e[i] = c0 + i < cols ? s[i] : E(0);
    Vec16 v;
    std::memcpy(&v, e, 16);
    return v;
  } else {
    return load16(s);
  }
}

// Writing the workspace side stores the whole vector (its row holds it: ld >= cols rounded up to
// V); writing the caller's side stores only the columns below `cols` -- past them, up to its ld,
// lies memory the caller owns and this copy must not touch.
template <class E, bool kIntoWorkspace>
PIPEGEMM_HOST_DEVICE void store_chunk(E* dst, int64_t ldd, int64_t cols, int64_t r, int64_t q, const Vec16& v) {
  constexpr int V = 16 / int(sizeof(E));
  const int64_t c0 = q * V;
  E* d = dst + r * ldd + c0;
  if constexpr (kIntoWorkspace) {
    store16(d, v);
  } else {
    E e[V];
    std::memcpy(e, &v, 16);
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (c0 + i < cols) d[i] = e[i];
  }
}

// Rows r and r + 1 (if any) of chunk q: both rows' loads in flight before either store -- the
// copy kernel's loop body.
template <class E, bool kIntoWorkspace>
PIPEGEMM_HOST_DEVICE void copy_row_pair(E* dst, int64_t ldd, const E* src, int64_t lds, int64_t rows, int64_t cols,
                                        int64_t r, int64_t q) {
  const bool two = r + 1 < rows;
  const Vec16 v0 = load_chunk<E, kIntoWorkspace>(src, lds, cols, r, q);
  Vec16 v1{};
  if (two) v1 = load_chunk<E, kIntoWorkspace>(src, lds, cols, r + 1, q);
  store_chunk<E, kIntoWorkspace>(dst, ldd, cols, r, q, v0);
  if (two) store_chunk<E, kIntoWorkspace>(dst, ldd, cols, r + 1, q, v1);
}

}  // namespace pipegemm::detail
