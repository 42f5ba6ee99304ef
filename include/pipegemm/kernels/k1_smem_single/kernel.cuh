// k1 single buffer (seed 000 kernel 08; the seed 004 baseline): load -> sync -> compute -> sync.
//
// One smem slot per operand. Per k_tile: cp.async the tile, wait for all of it, barrier, run
// every k_block's ldmatrix + MMA out of shared memory, barrier (nobody may overwrite the slot
// while a warp still reads it). Shared memory lets the CTA load each A/B element once and
// feed it to every warp, but the copy and the MMAs of one CTA never overlap: while a tile
// flies the tensor cores of this CTA idle, and only other resident CTAs can fill the gap.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"

namespace pipegemm::kernels::k1 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct SingleBufferConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/1, WM, WN, Name> {
  static constexpr Mechanism kMechanism = SingleBufferConfig::smem_mechanism(
      LoadPath::cp_async, PipelineKind::single, TileOrder::rows_by_cols, EpilogueKind::direct);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k1_smem_single_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                          const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda,
                          int ldb, int ldd) {
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int tid = threadIdx.x;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;

  auto g = common::global_tiles<BM, BN, BK>(Aptr, Bptr, Dptr, M, N, K, lda, ldb, ldd, bm_idx, bn_idx);
  auto [sA, sB] = common::smem_ring<Cfg>(smem_raw);  // (BM,BK,1), (BN,BK,1)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(g.A(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(g.B(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = thr_mma.partition_fragment_C(g.D);          // (MMA,MMA_M,MMA_N)
  clear(tCrD);
  auto s2r = common::s2r_partition<Cfg>(tiled_mma, tid, sA, sB, tCrA, tCrB);
  auto g2s = common::g2s_partition<Cfg>(tid, g.A, sA, g.B, sB);
  const typename Cfg::G2SAtom g2s_atom;

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;

  // ===== MAINLOOP =====================================================================
  // load -> wait -> sync -> compute -> sync. Nothing overlaps inside the CTA: the cp.async
  // group is waited on (wait<0>) right after it is committed; the second barrier keeps the
  // next k_tile's copy from overwriting the slot under warps still reading it.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const int k_limit = K - k_tile * BK;
    common::g2s_cp_async_k_tile(g2s_atom, g2s, k_tile, 0, m_limit, n_limit, k_limit);
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    common::mma_k_tile(tiled_mma, s2r, 0, tCrA, tCrB, tCrD);
    __syncthreads();
  }

  // ===== EPILOGUE =====================================================================
  // Register -> global, predicated on the M/N edges (the seed's simplified epilogue).
  common::epilogue_direct<TD>(thr_mma, tCrD, g.D, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k1
