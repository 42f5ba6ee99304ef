// k2 double buffer staged through registers (the LDG form of the double buffer; docs/ladder.md).
//
// Two smem slots. While the warps compute k_tile t out of slot t%2, every thread already has
// the LDG.128 of k_tile t+1 in flight into registers; after the MMAs it stores them (STS) into
// the other slot and one barrier publishes them. The global latency hides behind a whole
// k_tile of MMAs, at the price of registers to hold the tile in flight, and the STS still
// costs issue slots of the warps that compute.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::k2 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct DoubleBufferLdgConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/2, WM, WN, Name> {
  static constexpr Mechanism kMechanism = DoubleBufferLdgConfig::smem_mechanism(
      LoadPath::ldg, PipelineKind::ldg_register, TileOrder::rows_by_cols, EpilogueKind::direct);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k2_dbuf_ldg_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
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
  // G2R2S: the cp.async tiled copy's thread/vector layout, used with 16-byte LDG and STS; the
  // k_tile in flight waits in registers (CPY,CPY_M|N,CPY_K).
  auto g2s = common::g2s_partition<Cfg>(tid, g.A, sA, g.B, sB);
  Tensor tArA = make_fragment_like(g2s.sA(_, _, _, 0));
  Tensor tBrB = make_fragment_like(g2s.sB(_, _, _, 0));
  const typename Cfg::VecAtom vec;

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;
  pipeline::RingState<2> read_slot;   // slot the MMAs read
  pipeline::RingState<2> write_slot;  // slot the next STS fills

  // ===== PROLOGUE =====================================================================
  // k_tile 0: LDG -> STS into slot 0 and publish it. Nothing to overlap with yet.
  common::g2r_vectors(vec, g2s.gA(_, _, _, 0), tArA, g2s.cA, m_limit, K);
  common::g2r_vectors(vec, g2s.gB(_, _, _, 0), tBrB, g2s.cB, n_limit, K);
  copy(vec, tArA, g2s.sA(_, _, _, write_slot.index));
  copy(vec, tBrB, g2s.sB(_, _, _, write_slot.index));
  ++write_slot;
  __syncthreads();

  // ===== MAINLOOP =====================================================================
  // LDG of k_tile+1 into registers, then the MMAs of k_tile from smem (the loads fly under
  // them), then STS into the other slot and one barrier. One barrier is enough: the slot
  // written here was last read in the previous iteration, which ended with a barrier.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const bool has_next = k_tile + 1 < k_tiles;
    if (has_next) {
      const int k_limit = K - (k_tile + 1) * BK;
      common::g2r_vectors(vec, g2s.gA(_, _, _, k_tile + 1), tArA, g2s.cA, m_limit, k_limit);
      common::g2r_vectors(vec, g2s.gB(_, _, _, k_tile + 1), tBrB, g2s.cB, n_limit, k_limit);
    }
    common::mma_k_tile(tiled_mma, s2r, read_slot.index, tCrA, tCrB, tCrD);
    ++read_slot;
    // Keep the STS after the MMAs: without this point ptxas hoists them into the first
    // k_block to free the staging registers (~250 live), and the warp then stalls on the LDG
    // after a few HMMAs instead of a whole k_tile (loads reordered against compute, which
    // `pipegemm sass` checks: docs/sass.md). Not for FFMA: there the same point makes NVVM sink
    // the LDGs below the FFMAs.
    if constexpr (Cfg::Ops::kTensorCore) __syncwarp();
    if (has_next) {
      copy(vec, tArA, g2s.sA(_, _, _, write_slot.index));
      copy(vec, tBrB, g2s.sB(_, _, _, write_slot.index));
      ++write_slot;
    }
    __syncthreads();
  }

  // ===== DRAIN ========================================================================
  // Nothing in flight: the last k_tile's LDGs were consumed by the last STS.

  // ===== EPILOGUE =====================================================================
  common::epilogue_direct<TD>(thr_mma, tCrD, g.D, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k2
