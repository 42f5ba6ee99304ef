// k0 simple (seed 000, kernel 07): global -> registers -> MMA, no shared memory.
//
// Each thread loads exactly the A and B elements its MMA fragments need, straight from global
// memory, element by element, and runs the tiled MMA. Nothing is shared between warps (every
// A row panel is read once per warp column from L1/L2) and nothing overlaps except what the
// warp scheduler finds between independent loads. Element loads take any alignment and any
// leading dimension, so this rung is the automatic choice's fallback for misaligned inputs; it
// also takes every layout, batch and epilogue (common::FullArgs), so some variant accepts every problem.
// As that fallback it runs the ~4 us grids of tiny, misaligned problems, where the launch is half
// the time: both kernels wait on griddepcontrol first (kGridDep), so the launcher may start them
// programmatically dependent on the kernel before (arch/griddep.cuh).
#pragma once

#include <cute/tensor.hpp>

#include <type_traits>

#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/common/tile_io.cuh"
#include "pipegemm/introspect/mechanism.hpp"

namespace pipegemm::kernels::k0 {

using namespace cute;

// Name_: an empty tag type per registered variant, so its name is in the mangled symbol.
template <class Ops_, int BM_, int BN_, int BK_, int WM_, int WN_, class Name_>
struct SimpleConfig {
  using Ops = Ops_;
  using Name = Name_;
  using TA = typename Ops::TA;
  using TD = typename Ops::TD;
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int STAGES = 0;  // no shared memory
  using TiledMma = typename Ops::template TiledMma<WM_, WN_>;
  static constexpr int kNumThreads = int(size(TiledMma{}));
  static constexpr int kSmemBytes = 0;
  static constexpr bool kFullSemantics = true;  // takes common::FullArgs: layouts, batch, epilogue
  static constexpr bool kGridDep = true;        // griddep_wait before any global access
  // M/N-major operands (a runtime stride along K). Not for int8: IMMA reads K-major operands, and
  // a runtime K stride over an int8 fragment's 4x more elements spilled registers; an MN-major
  // int8 problem goes to cuBLAS.
  static constexpr bool kAnyLayout = !std::is_same_v<TA, int8_t>;
  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::ldg;
    m.mma = Ops::kMma;
    m.pipeline = PipelineKind::none;
    m.order = TileOrder::rows_by_cols;
    m.epilogue = EpilogueKind::direct;
    m.load_bytes = int(sizeof(TA));  // one element per load: any alignment
    m.warps_m = Ops::kTensorCore ? WM_ : 0;
    m.warps_n = Ops::kTensorCore ? WN_ : 0;
    return m;
  }();
  static_assert(BK % Ops::kMmaK == 0, "a k_tile is whole k_blocks");
  static_assert(BM % size<0>(typename TiledMma::AtomShape_MNK{}) == 0, "BM covers whole MMAs");
};

// The rung's K loop, shared by both kernels: load -> compute, per k_tile, per thread. No
// prologue, no drain: there is no buffer to fill ahead. Loads of the next k_tile can only overlap
// this one's MMAs through other warps (occupancy), which is what k1..k4 improve on.
template <int BK, class TiledMma, class GA, class GB, class CA, class CB, class RA, class RB, class RD>
CUTE_DEVICE void mainloop(TiledMma const& tiled_mma, GA const& tCgA, GB const& tCgB, CA const& tCcA, CB const& tCcB,
                          RA& tCrA, RB& tCrB, RD& tCrD, int m_limit, int n_limit, int K, int k_tiles) {
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const int k_limit = K - k_tile * BK;
    common::g2r_elements(tCgA(_, _, _, k_tile), tCrA, tCcA, m_limit, k_limit);
    common::g2r_elements(tCgB(_, _, _, k_tile), tCrB, tCcB, n_limit, k_limit);
    gemm(tiled_mma, tCrD, tCrA, tCrB, tCrD);
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k0_simple_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                     const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda, int ldb,
                     int ldd) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  using TD = typename Cfg::TD;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;
  arch::griddep_wait();
  arch::griddep_launch_dependents();

  auto g = common::global_tiles<BM, BN, BK>(Aptr, Bptr, Dptr, M, N, K, lda, ldb, ldd, bm_idx, bn_idx);
  Tensor cA = make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{}));  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{}));  // (BN,BK) -> (n,k)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(threadIdx.x);
  Tensor tCgA = thr_mma.partition_A(g.A);  // (MMA,MMA_M,MMA_K,k_tiles)
  Tensor tCgB = thr_mma.partition_B(g.B);  // (MMA,MMA_N,MMA_K,k_tiles)
  Tensor tCcA = thr_mma.partition_A(cA);  // (MMA,MMA_M,MMA_K) -> (m,k)
  Tensor tCcB = thr_mma.partition_B(cB);  // (MMA,MMA_N,MMA_K) -> (n,k)
  Tensor tCrA = thr_mma.partition_fragment_A(g.A(_, _, 0));  // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(g.B(_, _, 0));  // (MMA,MMA_N,MMA_K)
  Tensor tCrD = thr_mma.partition_fragment_C(g.D);           // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;

  // ===== MAINLOOP =====================================================================
  mainloop<BK>(tiled_mma, tCgA, tCgB, tCcA, tCcB, tCrA, tCrB, tCrD, m_limit, n_limit, K, k_tiles);

  // ===== EPILOGUE =====================================================================
  // Accumulators straight to global, converted, predicated on the M/N edges.
  common::epilogue_direct<TD>(thr_mma, tCrD, g.D, m_limit, n_limit);
}

// An operand's (row, k) strides: both at run time (any layout), or K contiguous.
template <bool kAnyLayout>
CUTE_DEVICE auto operand_stride(int64_t s_row, int64_t s_k) {
  if constexpr (kAnyLayout) return make_stride(s_row, s_k);
  else return (void)s_k, make_stride(s_row, Int<1>{});
}

// The full semantics (common::FullArgs): any layout, the batch over grid z, the epilogue. Run for
// every problem that is not the plain TN GEMM; the plain kernel above is the rung as the seed
// has it (and its SASS proof). Its unrolled per-element epilogue spills some registers in a few
// type sets -- the fallback's cost, not the rung's.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k0_full_kernel(const common::FullArgs<typename Cfg::TA, typename Cfg::TD> args) {
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  using TD = typename Cfg::TD;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;
  arch::griddep_wait();
  arch::griddep_launch_dependents();
  const int M = args.m, N = args.n, K = args.k;
  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;
  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(threadIdx.x);
  Tensor cA = make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{}));  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{}));  // (BN,BK) -> (n,k)
  Tensor tCcA = thr_mma.partition_A(cA);  // (MMA,MMA_M,MMA_K) -> (m,k)
  Tensor tCcB = thr_mma.partition_B(cB);  // (MMA,MMA_N,MMA_K) -> (n,k)

#pragma unroll 1
  for (int bt = blockIdx.z; bt < args.batch; bt += gridDim.z) {
    Tensor mA = make_tensor(make_gmem_ptr(args.a + bt * args.stride_a), make_shape(M, K),
                            operand_stride<Cfg::kAnyLayout>(args.a_sm, args.a_sk));
    Tensor mB = make_tensor(make_gmem_ptr(args.b + bt * args.stride_b), make_shape(N, K),
                            operand_stride<Cfg::kAnyLayout>(args.b_sn, args.b_sk));
    Tensor mD = make_tensor(make_gmem_ptr(args.d + bt * args.stride_d), make_shape(M, N), make_stride(args.ldd, Int<1>{}));
    Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(bm_idx, _));  // (BM,BK,k_tiles)
    Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(bn_idx, _));  // (BN,BK,k_tiles)
    Tensor gD = local_tile(mD, make_tile(Int<BM>{}, Int<BN>{}), make_coord(bm_idx, bn_idx));
    Tensor tCgA = thr_mma.partition_A(gA);  // (MMA,MMA_M,MMA_K,k_tiles)
    Tensor tCgB = thr_mma.partition_B(gB);  // (MMA,MMA_N,MMA_K,k_tiles)
    Tensor tCrA = thr_mma.partition_fragment_A(gA(_, _, 0));  // (MMA,MMA_M,MMA_K)
    Tensor tCrB = thr_mma.partition_fragment_B(gB(_, _, 0));  // (MMA,MMA_N,MMA_K)
    Tensor tCrD = thr_mma.partition_fragment_C(gD);           // (MMA,MMA_M,MMA_N)
    clear(tCrD);

    // ===== MAINLOOP =====================================================================
    mainloop<BK>(tiled_mma, tCgA, tCgB, tCcA, tCcB, tCrA, tCrB, tCrD, m_limit, n_limit, K, k_tiles);

    // ===== EPILOGUE =====================================================================
    // alpha, beta * C, bias, activation per element, converted, predicated on the M/N edges.
    common::epilogue_direct<TD>(thr_mma, tCrD, gD, m_limit, n_limit, args.epi, int64_t(bm_idx) * BM,
                                int64_t(bn_idx) * BN, bt);
  }
}

}  // namespace pipegemm::kernels::k0

namespace pipegemm::kernels::common {
template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct FullKernel<k0::SimpleConfig<Ops, BM, BN, BK, WM, WN, Name>> {
  static constexpr auto value = &k0::k0_full_kernel<k0::SimpleConfig<Ops, BM, BN, BK, WM, WN, Name>>;
};
}  // namespace pipegemm::kernels::common
