// The packed form of a kernel that needs 16-byte rows and pointers (TMA): A and B are copied into
// a 16-byte-aligned workspace (rows padded to whole 16-byte vectors), D goes through one when its
// rows, its pointer or its row end are not whole 16-byte vectors, and the kernel runs the aligned
// problem. Any alignment at the kernel's speed, for one extra pass over the copied operands: on
// the H200's ~4 TB/s, 4096^3 FP16 copies A and B in ~16 us against a ~185 us GEMM. Which of
// packing, a narrow-load producer or k0 wins is a measurement (tune); docs/any_alignment.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

// The product of sizes (elements, rows, bytes), or SIZE_MAX where it does not fit: products of a
// batch may overlap in the caller's memory (a stride of 1) but not in a workspace, which can then
// be larger than 2^64 bytes; SIZE_MAX saturates through the sums below and no allocation takes it.
inline size_t checked_product(std::initializer_list<uint64_t> factors) {
  size_t r = 1;
  for (const uint64_t f : factors)
    if (__builtin_mul_overflow(r, size_t(f), &r)) return SIZE_MAX;
  return r;
}
inline size_t saturating_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
// A workspace part's bytes, rounded up to 256 (each part starts 256-byte aligned).
inline size_t workspace_part(size_t bytes) { return bytes > SIZE_MAX - 255 ? SIZE_MAX : (bytes + 255) / 256 * 256; }

// One operand's part of the plan. `rows` x `cols` is the matrix as it lies in memory (rows of
// `cols` contiguous elements): a K-major A is (M, K), an M-major one (K, M); D is (M, N).
struct PackPart {
  bool copy = false;           // goes through the workspace
  int64_t rows = 0, cols = 0;  // the stored matrix
  int64_t products = 1;        // matrices copied: every product's, a broadcast operand's one
  int64_t ld = 0, stride = 0;  // leading dimension and product stride there (the caller's when !copy)
  size_t off = 0;              // byte offset in the workspace
};

struct PackPlan {
  PackPart a, b, d;
  size_t bytes = 0;  // the workspace (256-byte aligned parts); SIZE_MAX: past 2^64 (refused)
  bool any() const { return a.copy || b.copy || d.copy; }
  int copies() const { return int(a.copy) + int(b.copy) + int(d.copy); }
};

// The plan for a normalized problem whose D is row-major (any layout of A and B, batch, C, bias:
// those are read element by element, naturally aligned, and need no copy); null pointers count as
// aligned. An operand is copied when its rows, its pointer or (batched) its product stride are not
// whole 16-byte vectors -- D also when its row end is not (TMA stores clip in whole 16 bytes). In
// the workspace each row is whole vectors and each product follows the last; a broadcast operand
// (stride 0) is copied once and stays broadcast.
inline PackPlan pack_plan(const Problem& p, const void* A, const void* B, const void* D) {
  auto whole = [](int64_t elems, int esize) {  // elems rounded up to whole 16-byte vectors
    const int64_t v = 16 / esize;
    return (elems + v - 1) / v * v;
  };
  auto off16 = [](int64_t elems, int esize) { return (uint64_t(elems) * uint64_t(esize)) % 16 != 0; };
  // rows x cols as stored; row_end: the row's end must be a whole vector too (D).
  auto part = [&](int64_t rows, int64_t cols, int64_t ld, int64_t stride, int esize, const void* ptr, bool row_end) {
    PackPart o;
    o.rows = rows, o.cols = cols;
    const bool bcast = p.batch > 1 && stride == 0;
    o.products = p.batch > 1 && !bcast ? p.batch : 1;
    o.copy = off16(ld, esize) || (reinterpret_cast<uintptr_t>(ptr) % 16) != 0 || (o.products > 1 && off16(stride, esize)) ||
             (row_end && off16(cols, esize));
    o.ld = o.copy ? whole(cols, esize) : ld;
    o.stride = !o.copy ? stride : bcast ? 0 : rows * o.ld;
    return o;
  };
  const int ea = dtype_bytes(p.a_type), eb = dtype_bytes(p.b_type), ed = dtype_bytes(p.d_type);
  const bool ka = p.a_layout == Layout::RowMajor, kb = p.b_layout == Layout::RowMajor;
  PackPlan pl;
  pl.a = part(ka ? p.m : p.k, ka ? p.k : p.m, p.lda, p.stride_a, ea, A, false);
  pl.b = part(kb ? p.n : p.k, kb ? p.k : p.n, p.ldb, p.stride_b, eb, B, false);
  pl.d = part(p.m, p.n, p.ldd, p.stride_d, ed, D, true);  // never broadcast (validate_problem)
  auto place = [&](PackPart& o, int esize) {
    o.off = pl.bytes;
    if (o.copy)
      pl.bytes = saturating_add(
          pl.bytes, workspace_part(checked_product({uint64_t(o.products), uint64_t(o.rows), uint64_t(o.ld), uint64_t(esize)})));
  };
  place(pl.a, ea);
  place(pl.b, eb);
  place(pl.d, ed);
  return pl;
}

// What the kernel runs on: the problem with each copied part's leading dimension and stride, and
// the operands with its workspace pointer (ws: the workspace's base). C and the bias stay as they
// are -- a C = D in place is read from the caller's D before D is copied back.
inline Problem packed_problem(const Problem& p, const PackPlan& pl) {
  Problem q = p;
  if (pl.a.copy) q.lda = pl.a.ld, q.stride_a = pl.a.stride;
  if (pl.b.copy) q.ldb = pl.b.ld, q.stride_b = pl.b.stride;
  if (pl.d.copy) q.ldd = pl.d.ld, q.stride_d = pl.d.stride;
  return q;
}
inline Operands packed_operands(const Operands& x, const PackPlan& pl, char* ws) {
  Operands y = x;
  if (pl.a.copy) y.a = ws + pl.a.off;
  if (pl.b.copy) y.b = ws + pl.b.off;
  if (pl.d.copy) y.d = ws + pl.d.off;
  return y;
}

using KernelLaunch = Status (*)(const Problem& p, const Operands& x, cudaStream_t_ s);

// Packs what pack_plan says, runs `kernel` on the aligned problem (its semantics unchanged: C and
// the bias are read where they are -- a C = D in place from D itself, before D is copied back),
// copies D back; the workspace is the caller's, or stream-ordered memory from the library's pool
// (cudaMallocFromPoolAsync / cudaFreeAsync on s), so concurrent streams do not share one. Nothing needs packing: `kernel` runs the problem as given.
Status launch_packed(const Problem& p, const Operands& x, cudaStream_t_ s, KernelLaunch kernel);

// The K-major form of a problem (a normalized one, D row-major) for a kernel that reads only
// K-major operands (the int8 rungs: IMMA fragments are K-major, and wgmma has no transposed int8):
// each MN-major operand -- every product of it, a broadcast one once -- is transposed into a
// stream-ordered workspace (rows of K, packed), and `kernel` runs the TN problem on it. One extra
// pass over the transposed operands; nothing to do when both are K-major already.
Status launch_k_major(const Problem& p, const Operands& x, cudaStream_t_ s, KernelLaunch kernel);
// Its workspace: each MN-major operand's products (a broadcast one once), K-major and packed.
struct KMajorPlan {
  int64_t a_products = 0, b_products = 0;
  size_t a_bytes = 0, b_bytes = 0;  // 0: that operand is K-major already; SIZE_MAX: past 2^64
  size_t bytes() const { return saturating_add(a_bytes, b_bytes); }
};
inline KMajorPlan k_major_plan(const Problem& p) {
  KMajorPlan k;
  k.a_products = p.batch > 1 && p.stride_a == 0 ? 1 : p.batch;
  k.b_products = p.batch > 1 && p.stride_b == 0 ? 1 : p.batch;
  if (p.a_layout == Layout::ColMajor)
    k.a_bytes = workspace_part(checked_product({uint64_t(k.a_products), uint64_t(p.m), uint64_t(p.k), uint64_t(dtype_bytes(p.a_type))}));
  if (p.b_layout == Layout::ColMajor)
    k.b_bytes = workspace_part(checked_product({uint64_t(k.b_products), uint64_t(p.n), uint64_t(p.k), uint64_t(dtype_bytes(p.b_type))}));
  return k;
}

}  // namespace pipegemm::detail
