// k3 double buffer with cp.async (seed 004 step 3, the LDGSTS variant).
//
// Two smem slots filled by cp.async (LDGSTS): global -> shared without passing through
// registers, so the copy of k_tile t+1 costs the computing warps only its issue, and no
// registers. Per 004: commit the next k_tile's group before the MMAs, wait for it after.
// The latency hidden is one k_tile of MMAs; deeper rings (k4) hide more.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::k3 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct DoubleBufferCpAsyncConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/2, WM, WN, Name> {};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k3_dbuf_cp_async_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                            const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda,
                            int ldb, int ldd) {
  using TA = typename Cfg::TA;
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  TA* smem_a = reinterpret_cast<TA*>(smem_raw);
  TA* smem_b = smem_a + cosize(typename Cfg::SmemLayoutA{});
  const int tid = threadIdx.x;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;

  Tensor mA = make_tensor(make_gmem_ptr(Aptr), make_shape(M, K), make_stride(int64_t(lda), Int<1>{}));  // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(Bptr), make_shape(N, K), make_stride(int64_t(ldb), Int<1>{}));  // (N,K)
  Tensor mD = make_tensor(make_gmem_ptr(Dptr), make_shape(M, N), make_stride(int64_t(ldd), Int<1>{}));  // (M,N)
  Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(bm_idx, _));  // (BM,BK,k_tiles)
  Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(bn_idx, _));  // (BN,BK,k_tiles)
  Tensor gD = local_tile(mD, make_tile(Int<BM>{}, Int<BN>{}), make_coord(bm_idx, bn_idx));  // (BM,BN)
  Tensor sA = make_tensor(make_smem_ptr(smem_a), typename Cfg::SmemLayoutA{});  // (BM,BK,2)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), typename Cfg::SmemLayoutB{});  // (BN,BK,2)
  Tensor cA = make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{}));  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{}));  // (BN,BK) -> (n,k)
  Tensor cD = make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{}));  // (BM,BN) -> (m,n)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(gA(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(gB(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = thr_mma.partition_fragment_C(gD);           // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  auto s2r_a = make_tiled_copy_A(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_a = s2r_a.get_slice(tid);
  Tensor tAsA = s2r_thr_a.partition_S(sA);         // (CPY,CPY_M,k_blocks,2)
  Tensor tCrA_view = s2r_thr_a.retile_D(tCrA);     // (CPY,CPY_M,k_blocks)
  auto s2r_b = make_tiled_copy_B(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_b = s2r_b.get_slice(tid);
  Tensor tBsB = s2r_thr_b.partition_S(sB);         // (CPY,CPY_N,k_blocks,2)
  Tensor tCrB_view = s2r_thr_b.retile_D(tCrB);     // (CPY,CPY_N,k_blocks)

  typename Cfg::G2SCopy g2s;
  auto g2s_thr = g2s.get_slice(tid);
  Tensor tAgA = g2s_thr.partition_S(gA);    // (CPY,CPY_M,CPY_K,k_tiles)
  Tensor tAsA_w = g2s_thr.partition_D(sA);  // (CPY,CPY_M,CPY_K,2)
  Tensor tAcA = g2s_thr.partition_S(cA);    // (CPY,CPY_M,CPY_K) -> (m,k)
  Tensor tBgB = g2s_thr.partition_S(gB);    // (CPY,CPY_N,CPY_K,k_tiles)
  Tensor tBsB_w = g2s_thr.partition_D(sB);  // (CPY,CPY_N,CPY_K,2)
  Tensor tBcB = g2s_thr.partition_S(cB);    // (CPY,CPY_N,CPY_K) -> (n,k)
  const typename Cfg::G2SAtom g2s_atom;

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;
  pipeline::RingState<2> read_slot;   // slot the MMAs read
  pipeline::RingState<2> write_slot;  // slot the next cp.async group fills

  // ===== PROLOGUE =====================================================================
  // k_tile 0 into slot 0, waited for at once: nothing to overlap with yet.
  common::g2s_cp_async(g2s_atom, tAgA(_, _, _, 0), tAsA_w(_, _, _, write_slot.index), tAcA, m_limit, K);
  common::g2s_cp_async(g2s_atom, tBgB(_, _, _, 0), tBsB_w(_, _, _, write_slot.index), tBcB, n_limit, K);
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
      common::g2s_cp_async(g2s_atom, tAgA(_, _, _, k_tile + 1), tAsA_w(_, _, _, write_slot.index), tAcA,
                           m_limit, k_limit);
      common::g2s_cp_async(g2s_atom, tBgB(_, _, _, k_tile + 1), tBsB_w(_, _, _, write_slot.index), tBcB,
                           n_limit, k_limit);
      ++write_slot;
    }
    cp_async_fence();
    common::mma_k_tile(tiled_mma, s2r_a, tAsA(_, _, _, read_slot.index), tCrA_view, tCrA, s2r_b,
                       tBsB(_, _, _, read_slot.index), tCrB_view, tCrB, tCrD);
    ++read_slot;
    cp_async_wait<0>();
    __syncthreads();
  }

  // ===== DRAIN ========================================================================
  // The last iteration committed an empty group and waited for it: nothing in flight.

  // ===== EPILOGUE =====================================================================
  common::epilogue_direct<TD>(thr_mma, tCrD, gD, cD, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k3
