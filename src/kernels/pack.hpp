// The packed form of a kernel that needs 16-byte rows and pointers (TMA): A and B are copied into
// a 16-byte-aligned workspace (rows padded to whole 16-byte vectors), D goes through one when its
// rows, its pointer or its row end are not whole 16-byte vectors, and the kernel runs the aligned
// problem. Any alignment at the kernel's speed, for one extra pass over the copied operands: on
// the H200's ~4 TB/s, 4096^3 FP16 copies A and B in ~16 us against a ~185 us GEMM. Which of
// packing, a narrow-load producer or k0 wins is a measurement (tune); docs/any_alignment.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

// A workspace part's bytes, rounded up to 256 (each part starts 256-byte aligned).
inline size_t workspace_part(size_t bytes) { return (bytes + 255) / 256 * 256; }

struct PackPlan {
  bool a = false, b = false, d = false;  // which operands go through the workspace
  int64_t lda = 0, ldb = 0, ldd = 0;     // their leading dimensions there (elements)
  size_t a_off = 0, b_off = 0, d_off = 0, bytes = 0;  // workspace layout (256-byte aligned parts)
  bool any() const { return a || b || d; }
};

// The plan for a normalized row-major (TN) problem; null pointers count as aligned.
inline PackPlan pack_plan(const Problem& p, const void* A, const void* B, const void* D) {
  auto misaligned = [](int64_t elems, int esize, const void* ptr) {
    return (uint64_t(elems) * uint64_t(esize)) % 16 != 0 || (reinterpret_cast<uintptr_t>(ptr) % 16) != 0;
  };
  auto whole = [](int64_t elems, int esize) {  // elems rounded up to whole 16-byte vectors
    const int64_t v = 16 / esize;
    return (elems + v - 1) / v * v;
  };
  const int ea = dtype_bytes(p.a_type), eb = dtype_bytes(p.b_type), ed = dtype_bytes(p.d_type);
  PackPlan pl;
  pl.a = misaligned(p.lda, ea, A);
  pl.b = misaligned(p.ldb, eb, B);
  pl.d = misaligned(p.ldd, ed, D) || (uint64_t(p.n) * uint64_t(ed)) % 16 != 0;
  pl.lda = pl.a ? whole(p.k, ea) : p.lda;
  pl.ldb = pl.b ? whole(p.k, eb) : p.ldb;
  pl.ldd = pl.d ? whole(p.n, ed) : p.ldd;
  pl.a_off = 0;
  pl.b_off = pl.a_off + (pl.a ? workspace_part(size_t(p.m) * size_t(pl.lda) * size_t(ea)) : 0);
  pl.d_off = pl.b_off + (pl.b ? workspace_part(size_t(p.n) * size_t(pl.ldb) * size_t(eb)) : 0);
  pl.bytes = pl.d_off + (pl.d ? workspace_part(size_t(p.m) * size_t(pl.ldd) * size_t(ed)) : 0);
  return pl;
}

using KernelLaunch = Status (*)(const Problem& p, const Operands& x, cudaStream_t_ s);

// Packs what pack_plan says, runs `kernel` on the aligned problem, copies D back; the workspace is
// stream-ordered (cudaMallocAsync / cudaFreeAsync on s), so concurrent streams do not share one.
// Nothing needs packing: `kernel` runs the problem as given.
Status launch_packed(const Problem& p, const Operands& x, cudaStream_t_ s, KernelLaunch kernel);

// The K-major form of a problem (a normalized one, D row-major) for a kernel that reads only
// K-major operands (the int8 rungs: IMMA fragments are K-major, and wgmma has no transposed int8):
// each MN-major operand -- every product of it, a broadcast one once -- is transposed into a
// stream-ordered workspace (rows of K, packed), and `kernel` runs the TN problem on it. One extra
// pass over the transposed operands; nothing to do when both are K-major already.
Status launch_k_major(const Problem& p, const Operands& x, cudaStream_t_ s, KernelLaunch kernel);

}  // namespace pipegemm::detail
