// k3 double buffer with cp.async (the LDGSTS form of the double buffer; docs/ladder.md).
//
// Two smem slots filled by cp.async (LDGSTS): global -> shared without passing through
// registers, so the copy of k_tile t+1 costs the computing warps only its issue, and no
// registers. Commit the next k_tile's group before the MMAs, wait for it after.
// The latency hidden is one k_tile of MMAs; deeper rings (k4) hide more.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::k3 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct DoubleBufferCpAsyncConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/2, WM, WN, Name> {
  static constexpr Mechanism kMechanism = DoubleBufferCpAsyncConfig::smem_mechanism(
      LoadPath::cp_async, PipelineKind::cp_async_ring, TileOrder::rows_by_cols, EpilogueKind::direct);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k3_dbuf_cp_async_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                            const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda,
                            int ldb, int ldd) {
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
  auto g2s = common::g2s_partition<Cfg>(tid, g.A, sA, g.B, sB);
  const typename Cfg::G2SAtom g2s_atom;

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;
  pipeline::RingState<2> read_slot;   // slot the MMAs read
  pipeline::RingState<2> write_slot;  // slot the next cp.async group fills

  // ===== PROLOGUE =====================================================================
  // k_tile 0 into slot 0, waited for at once: nothing to overlap with yet.
  common::g2s_cp_async_k_tile(g2s_atom, g2s, 0, write_slot.index, m_limit, n_limit, K);
  cp_async_fence();
  ++write_slot;
  cp_async_wait<0>();
  __syncthreads();

  // ===== MAINLOOP =====================================================================
  // Issue + commit the cp.async group of k_tile+1 into the other slot, run k_tile's MMAs
  // while it flies, then wait<0> + barrier. The slot being filled was last read in the
  // previous iteration, which ended with the barrier, so no extra barrier guards it.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    if (k_tile + 1 < k_tiles) {
      const int k_limit = K - (k_tile + 1) * BK;
      common::g2s_cp_async_k_tile(g2s_atom, g2s, k_tile + 1, write_slot.index, m_limit, n_limit, k_limit);
      ++write_slot;
    }
    cp_async_fence();
    common::mma_k_tile(tiled_mma, s2r, read_slot.index, tCrA, tCrB, tCrD);
    ++read_slot;
    cp_async_wait<0>();
    __syncthreads();
  }

  // ===== DRAIN ========================================================================
  // The last iteration committed an empty group and waited for it: nothing in flight.

  // ===== EPILOGUE =====================================================================
  common::epilogue_direct<TD>(thr_mma, tCrD, g.D, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k3
