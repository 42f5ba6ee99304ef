// Teaching variant (issue 14): the k2 double buffer with one thing broken -- A is read down its
// columns.
//
// Each thread owns one row of the A tile and walks its share of the k_tile with 2-byte loads, so
// one warp load instruction reads one element from each of 32 consecutive rows: 32 sectors per
// request, 2 of each sector's 32 bytes used (6%), where k2 (threads along K in 16-byte vectors)
// reads 16 full sectors. Everything else is k2's: the loads of k_tile+1 fly under the MMAs of
// k_tile, B travels as 16-byte vectors, the swizzled smem layout (A's registers are packed into
// the same 16-byte chunks k2 stores), the MMAs and the epilogue -- so it verifies exactly.
// `pipegemm diagnose` reads it as "uncoalesced access": bytes used per sector < 50% and > 16 L1
// sectors per global load request. More stages cannot fix it; k2's load pattern does.
//
// 8 warps (4x2), not k2's 4: element-wise staging holds twice k2's registers per A element, and
// at 4 warps (128 accumulators a thread) that spills.
#pragma once

#include <cute/tensor.hpp>

#include <cstdint>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::teaching {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct UncoalescedAConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/2, WM, WN, Name> {
  using Base = common::SmemTileConfig<Ops, BM, BN, BK, 2, WM, WN, Name>;
  // kRowSplit threads per A row, each kRowK consecutive k's of it (whole 16-byte chunks).
  static constexpr int kRowSplit = Base::kNumThreads / BM;
  static constexpr int kRowK = BK / (kRowSplit > 0 ? kRowSplit : 1);
  // A's loads are one element each; B's (and the pointer, ld and K rules) stay 16-byte vectors.
  static constexpr bool kVectorOperands = true;
  static constexpr Mechanism kMechanism = [] {
    Mechanism m = Base::smem_mechanism(LoadPath::ldg, PipelineKind::ldg_register, TileOrder::rows_by_cols,
                                       EpilogueKind::direct);
    m.load_bytes = int(sizeof(typename Ops::TA));
    return m;
  }();
  static_assert(sizeof(typename Ops::TA) == 2 && Ops::kVec == 8, "16-bit operands: 2-byte loads, 8 per chunk");
  static_assert(Base::kNumThreads % BM == 0 && BK % (Base::kNumThreads / BM) == 0 && kRowK % Ops::kVec == 0,
                "every thread owns whole 16-byte chunks of one A row");
};

// One 2-byte global load (ld.global.nc.u16 -> LDG.E.U16.CONSTANT): written out so the compiler
// cannot merge a thread's neighbouring elements into a wider load and hide the lesson.
CUTE_DEVICE uint16_t ldg_u16(const void* p) {
  uint16_t v;
  asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}

// This thread's share of A for one k_tile: kRowK elements of its row from `row` (k_left
// elements of K remain there; K is whole chunks, so a chunk is in or out), zero outside.
template <class Cfg>
CUTE_DEVICE void load_a_down_columns(uint16_t (&a)[Cfg::kRowK], const typename Cfg::TA* row, bool row_ok,
                                     int k_left) {
  CUTE_UNROLL
  for (int j = 0; j < Cfg::kRowK; ++j)
    a[j] = row_ok && (j / 8) * 8 < k_left ? ldg_u16(row + j) : uint16_t(0);
}

// The same elements into the smem slot, packed into k2's 16-byte chunks (the swizzle permutes
// whole chunks, so a chunk's 8 elements stay contiguous).
template <class Cfg, class SA>
CUTE_DEVICE void store_a_row(const uint16_t (&a)[Cfg::kRowK], SA&& sA_slot, int r, int k0) {
  CUTE_UNROLL
  for (int c = 0; c < Cfg::kRowK / 8; ++c) {
    uint32_t w[4];
    CUTE_UNROLL
    for (int i = 0; i < 4; ++i) w[i] = uint32_t(a[c * 8 + 2 * i]) | (uint32_t(a[c * 8 + 2 * i + 1]) << 16);
    *reinterpret_cast<uint4*>(&sA_slot(r, k0 + c * 8)) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k2_uncoalesced_a_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                            const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda, int ldb,
                            int ldd) {
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int tid = threadIdx.x;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;

  auto g = common::global_tiles<BM, BN, BK>(Aptr, Bptr, Dptr, M, N, K, lda, ldb, ldd, bm_idx, bn_idx);
  auto [sA, sB] = common::smem_ring<Cfg>(smem_raw);  // (BM,BK,2), (BN,BK,2)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(g.A(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(g.B(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = thr_mma.partition_fragment_C(g.D);          // (MMA,MMA_M,MMA_N)
  clear(tCrD);
  auto s2r = common::s2r_partition<Cfg>(tiled_mma, tid, sA, sB, tCrA, tCrB);
  // B: k2's 16-byte LDG -> registers -> STS. A: this thread's row r, k's [k0, k0 + kRowK).
  auto g2s = common::g2s_partition<Cfg>(tid, g.A, sA, g.B, sB);
  Tensor tBrB = make_fragment_like(g2s.sB(_, _, _, 0));
  const typename Cfg::VecAtom vec;
  const int r = tid % BM, k0 = (tid / BM) * Cfg::kRowK;
  uint16_t a_regs[Cfg::kRowK];

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const bool row_ok = r < m_limit;
  const typename Cfg::TA* a_row = row_ok ? Aptr + int64_t(bm_idx * BM + r) * lda + k0 : Aptr;
  const int k_tiles = (K + BK - 1) / BK;
  pipeline::RingState<2> read_slot;   // slot the MMAs read
  pipeline::RingState<2> write_slot;  // slot the next STS fills

  // ===== PROLOGUE =====================================================================
  load_a_down_columns<Cfg>(a_regs, a_row, row_ok, K - k0);
  common::g2r_vectors(vec, g2s.gB(_, _, _, 0), tBrB, g2s.cB, n_limit, K);
  store_a_row<Cfg>(a_regs, sA(_, _, write_slot.index), r, k0);
  copy(vec, tBrB, g2s.sB(_, _, _, write_slot.index));
  ++write_slot;
  __syncthreads();

  // ===== MAINLOOP (k2's) ===============================================================
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const bool has_next = k_tile + 1 < k_tiles;
    if (has_next) {
      const int k_limit = K - (k_tile + 1) * BK;
      load_a_down_columns<Cfg>(a_regs, a_row + (k_tile + 1) * BK, row_ok, k_limit - k0);
      common::g2r_vectors(vec, g2s.gB(_, _, _, k_tile + 1), tBrB, g2s.cB, n_limit, k_limit);
    }
    common::mma_k_tile(tiled_mma, s2r, read_slot.index, tCrA, tCrB, tCrD);
    ++read_slot;
    __syncwarp();  // keep the STS after the MMAs (k2: else ptxas hoists them and the warp waits on the loads)
    if (has_next) {
      store_a_row<Cfg>(a_regs, sA(_, _, write_slot.index), r, k0);
      copy(vec, tBrB, g2s.sB(_, _, _, write_slot.index));
      ++write_slot;
    }
    __syncthreads();
  }

  // ===== EPILOGUE =====================================================================
  common::epilogue_direct<TD>(thr_mma, tCrD, g.D, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::teaching
