// Predicated tile movement shared by the ladder: global -> shared (cp.async with zero fill, or
// LDG into registers then STS), global -> registers element by element (k0), the two
// epilogues (direct register -> global, and staged through shared memory for 128-bit coalesced
// stores); the swizzled CTA order is pipeline/tile_scheduler.cuh. Edges are handled here, by
// predicates computed from identity tensors, never by padding in memory: an element outside
// (M,N,K) is read as zero and never written.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/common/operand_traits.cuh"

namespace pipegemm::kernels::common {

using namespace cute;

// The global views of one CTA tile: A (BM,BK,k_tiles), B (BN,BK,k_tiles), D (BM,BN). All
// three are row-major with 64-bit row strides (M * lda may exceed 2^31 elements); B is (N,K).
template <class GA, class GB, class GD>
struct GlobalTiles {
  GA A;
  GB B;
  GD D;
};
template <int BM, int BN, int BK, class TA, class TD>
CUTE_DEVICE auto global_tiles(TA const* A, TA const* B, TD* D, int M, int N, int K, int lda, int ldb,
                              int ldd, int tile_m, int tile_n) {
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(M, K), make_stride(int64_t(lda), Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(N, K), make_stride(int64_t(ldb), Int<1>{}));
  Tensor mD = make_tensor(make_gmem_ptr(D), make_shape(M, N), make_stride(int64_t(ldd), Int<1>{}));
  Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(tile_m, _));
  Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(tile_n, _));
  Tensor gD = local_tile(mD, make_tile(Int<BM>{}, Int<BN>{}), make_coord(tile_m, tile_n));
  return GlobalTiles<decltype(gA), decltype(gB), decltype(gD)>{gA, gB, gD};
}

// Predicate of one 128-bit vector: its first (m,k) coordinate inside the problem. The vector
// paths require K to be a multiple of the vector, so a vector is entirely in or entirely out.
template <class Coord>
CUTE_DEVICE bool in_bounds(Coord const& c, int m_limit, int k_limit) {
  return get<0>(c) < m_limit && get<1>(c) < k_limit;
}

// cp.async (LDGSTS) of one k_tile, (CPY,CPY_M,CPY_K) views. Out-of-bounds vectors are
// zero-filled (src-size 0), so the MMA can run on full tiles at every edge.
template <class ZfillAtom, class TS, class TD, class TC>
CUTE_DEVICE void g2s_cp_async(ZfillAtom const& atom, TS const& src, TD&& dst, TC const& coord,
                              int m_limit, int k_limit) {
  CUTE_UNROLL
  for (int m = 0; m < size<1>(dst); ++m) {
    CUTE_UNROLL
    for (int k = 0; k < size<2>(dst); ++k)
      copy(atom.with(in_bounds(coord(0, m, k), m_limit, k_limit)), src(_, m, k), dst(_, m, k));
  }
}

// LDG of one k_tile into registers (zero where out of bounds); the STS is a plain copy later.
template <class VecAtom, class TS, class TR, class TC>
CUTE_DEVICE void g2r_vectors(VecAtom const& atom, TS const& src, TR& regs, TC const& coord,
                             int m_limit, int k_limit) {
  CUTE_UNROLL
  for (int m = 0; m < size<1>(regs); ++m) {
    CUTE_UNROLL
    for (int k = 0; k < size<2>(regs); ++k) {
      if (in_bounds(coord(0, m, k), m_limit, k_limit)) copy(atom, src(_, m, k), regs(_, m, k));
      else clear(regs(_, m, k));
    }
  }
}

// k0: element-wise global -> register loads of an MMA operand fragment; any alignment.
template <class TS, class TR, class TC>
CUTE_DEVICE void g2r_elements(TS const& src, TR& regs, TC const& coord, int m_limit, int k_limit) {
  using T = typename std::decay_t<TR>::value_type;
  CUTE_UNROLL
  for (int i = 0; i < size(regs); ++i)
    regs(i) = (get<0>(coord(i)) < m_limit && get<1>(coord(i)) < k_limit) ? T(src(i)) : T(0);
}

// Register -> global epilogue (the seed's "simplified" one, 000 section 7): each thread stores
// its accumulators where the MMA layout put them, converted, predicated per element.
template <class TD, class ThrMma, class TAcc, class GD>
CUTE_DEVICE void epilogue_direct(ThrMma const& thr_mma, TAcc const& tCrD, GD&& gD, int m_limit, int n_limit) {
  Tensor tCgD = thr_mma.partition_C(gD);                              // (MMA,MMA_M,MMA_N)
  Tensor tCcD = thr_mma.partition_C(make_identity_tensor(shape(gD)));  // (MMA,MMA_M,MMA_N) -> (m,n)
  CUTE_UNROLL
  for (int i = 0; i < size(tCrD); ++i)
    if (get<0>(tCcD(i)) < m_limit && get<1>(tCcD(i)) < n_limit)
      tCgD(i) = convert_acc<TD>(tCrD(i));
}

// The same with pipegemm's epilogue (common/epilogue.cuh) on every element; (m0, n0) is the
// tile's first element in D, b the product; C's element is addressed from the element's (m, n).
// An int32 D stays integer.
// One loop, the activation a uniform switch per element: one loop per activation (four inlined
// copies) spilled registers and doubled ptxas's time.
template <class TD, class ThrMma, class TAcc, class GD>
CUTE_DEVICE void epilogue_direct(ThrMma const& thr_mma, TAcc const& tCrD, GD&& gD, int m_limit, int n_limit,
                                 EpilogueArgs const& e, int64_t m0, int64_t n0, int64_t b) {
  Tensor tCgD = thr_mma.partition_C(gD);                              // (MMA,MMA_M,MMA_N)
  Tensor tCcD = thr_mma.partition_C(make_identity_tensor(shape(gD)));  // (MMA,MMA_M,MMA_N) -> (m,n)
  // C has D's type or f32 (an int32 D's C is int32: 4 bytes, as f32).
  const int64_t es = e.c_type == DType::f32 ? 4 : int64_t(sizeof(TD)), c_row = e.ldc * es;
  const char* c_tile = e.c ? static_cast<const char*>(e.c) + (b * e.stride_c + m0 * e.ldc + n0) * es : nullptr;
  CUTE_UNROLL
  for (int i = 0; i < size(tCrD); ++i) {
    const int m = get<0>(tCcD(i)), n = get<1>(tCcD(i));
    if (m < m_limit && n < n_limit) {
      const void* c_elem = c_tile ? static_cast<const void*>(c_tile + m * c_row + n * es) : nullptr;
      if constexpr (std::is_same_v<TD, int32_t>)
        tCgD(i) = epilogue_value_i32(tCrD(i), e, c_elem);
      else
        tCgD(i) = convert_acc<TD>(activate(epilogue_linear<TD>(float(tCrD(i)), e, c_elem, m0 + m, n0 + n), e.act));
    }
  }
}

// Padded row-major (BM,BN) staging tile of the shared-memory epilogue. 8 extra elements per
// row keep rows 16-byte aligned and shift consecutive rows by 4 banks (>=16-bit) or 8 banks
// (32-bit), so the MMA-layout writes of a warp (8 rows x 4 column pairs) are conflict-free.
template <class TD, int BM, int BN>
using EpilogueSmemLayout = cute::Layout<Shape<Int<BM>, Int<BN>>, Stride<Int<BN + 8>, _1>>;

// Register -> shared -> global epilogue (000 section 7.2): the MMA layout is a compute layout,
// not a store layout; staging through shared memory lets each thread store whole 16-byte row
// segments, so a warp writes contiguous 512-byte runs. Vectors cut by the N edge, or a D that
// is not 16-byte aligned row by row, fall back to element stores. Caller syncs before (the
// smem is the drained pipeline ring) and nothing after.
template <class TD, int BM, int BN, int kThreads, class ThrMma, class TAcc>
CUTE_DEVICE void epilogue_smem(ThrMma const& thr_mma, TAcc const& tCrD, TD* smem, TD* gD_ptr,
                               int ldd, int m_limit, int n_limit) {
  Tensor sD = make_tensor(make_smem_ptr(smem), EpilogueSmemLayout<TD, BM, BN>{});  // (BM,BN)
  Tensor tCsD = thr_mma.partition_C(sD);  // (MMA,MMA_M,MMA_N)
  CUTE_UNROLL
  for (int i = 0; i < size(tCrD); ++i) tCsD(i) = convert_acc<TD>(tCrD(i));
  __syncthreads();

  constexpr int kVecD = 16 / int(sizeof(TD));
  constexpr int kVecPerRow = BN / kVecD;
  static_assert(BN % kVecD == 0, "a staging row is whole 16-byte vectors");
  static_assert((BM * kVecPerRow) % kThreads == 0, "every thread stores the same vector count");
  const bool vec_ok = (reinterpret_cast<uintptr_t>(gD_ptr) % 16 == 0) && (ldd % kVecD == 0);
  CUTE_UNROLL
  for (int it = 0; it < BM * kVecPerRow / kThreads; ++it) {
    const int idx = it * kThreads + int(threadIdx.x);
    const int r = idx / kVecPerRow;
    const int c = (idx % kVecPerRow) * kVecD;
    if (r >= m_limit || c >= n_limit) continue;
    const TD* s = smem + r * (BN + 8) + c;
    TD* g = gD_ptr + int64_t(r) * ldd + c;
    if (vec_ok && c + kVecD <= n_limit) {
      *reinterpret_cast<uint4*>(g) = *reinterpret_cast<const uint4*>(s);
    } else {
      for (int j = 0; j < kVecD && c + j < n_limit; ++j) g[j] = s[j];
    }
  }
}

}  // namespace pipegemm::kernels::common
