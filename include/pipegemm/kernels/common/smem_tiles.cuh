// The shared-memory tile vocabulary of rungs k1..k4: the config every family derives from
// (tile, ring depth, swizzled smem layouts, copies, tiled MMA, smem budget) and the inner
// k_block loop that consumes one smem stage (S2R with next-k_block prefetch, then MMA).
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/operand_traits.cuh"
#include "pipegemm/kernels/common/tile_io.cuh"

namespace pipegemm::kernels::common {

using namespace cute;

// Dynamic smem a CTA may opt into: sm_90 (the compile-time bound of every config) and sm_80 (a
// config above it registers as sm_90-only, refused on sm_80 before launch). Same numbers as the
// planner's arch table.
inline constexpr int kSmemPerBlockOptin = 227 * 1024;
inline constexpr int kSmemPerBlockOptinSm80 = 163 * 1024;

// Name_: an empty tag type per registered variant; it puts the variant's name into the
// kernel's mangled symbol, which is how `pipegemm sass` finds that instantiation.
template <class Ops_, int BM_, int BN_, int BK_, int STAGES_, int WM_, int WN_, class Name_>
struct SmemTileConfig {
  using Ops = Ops_;
  using Name = Name_;
  using TA = typename Ops::TA;
  using TD = typename Ops::TD;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;

  using SmemAtom = typename Ops::template SmemAtom<BK>;
  using SmemLayoutA = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{})));  // (BM,BK,STAGES)
  using SmemLayoutB = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<BN>{}, Int<BK>{}, Int<STAGES>{})));  // (BN,BK,STAGES)

  using TiledMma = typename Ops::template TiledMma<WM_, WN_>;
  static constexpr int kNumThreads = int(size(TiledMma{}));

  // G2S as cp.async.cg 16 bytes with zero fill (k1, k3, k4) or as 16-byte LDG + STS (k2).
  using CpAsyncOp = SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<cute::uint128_t>;
  using G2SCopy = typename Ops::template G2SCopy<kNumThreads, BK, CpAsyncOp>;
  using G2SAtom = Copy_Atom<CpAsyncOp, TA>;
  using VecAtom = Copy_Atom<UniversalCopy<cute::uint128_t>, TA>;
  using S2RAtom = typename Ops::S2RAtom;

  static constexpr int kRingBytes = int((cosize(SmemLayoutA{}) + cosize(SmemLayoutB{})) * sizeof(TA));
  static constexpr int kSmemBytes = kRingBytes;

  // What every smem rung shares (mma_k_tile: ldmatrix with next-k_block prefetch, A-reusing
  // order on tensor cores; 16-byte G2S vectors); each rung adds its load path, pipeline, order
  // and epilogue.
  static constexpr Mechanism smem_mechanism(LoadPath load, PipelineKind pipeline, TileOrder order,
                                            EpilogueKind epilogue, int raster_group = 0) {
    Mechanism m;
    m.load = load;
    m.mma = Ops::kMma;
    m.pipeline = pipeline;
    m.order = order;
    m.epilogue = epilogue;
    m.load_bytes = 16;
    m.ldmatrix = Ops::kTensorCore;
    m.s2r_prefetch = true;
    m.a_reuse = Ops::kTensorCore;
    m.raster_group = raster_group;
    m.warps_m = Ops::kTensorCore ? WM_ : 0;
    m.warps_n = Ops::kTensorCore ? WN_ : 0;
    return m;
  }

  static_assert(BK % Ops::kVec == 0 && kNumThreads % (BK / Ops::kVec) == 0,
                "a k_tile row is whole 16-byte vectors spread over whole threads");
  static_assert((BM * BK / Ops::kVec) % kNumThreads == 0 && (BN * BK / Ops::kVec) % kNumThreads == 0,
                "every thread copies the same number of vectors per k_tile");
  static_assert(BK % Ops::kMmaK == 0, "a k_tile is whole k_blocks");
  static_assert(BM % 8 == 0 && BN % 8 == 0, "whole 8-row swizzle atoms");
  static_assert(kRingBytes <= kSmemPerBlockOptin, "the ring must fit the per-CTA smem opt-in");
};

// ---- The views a shared-memory rung builds for its CTA tile -----------------------------
// k1..k4 build the same views and differ only in how they drive them: how many slots, who
// copies (cp.async or LDG + STS), when they wait and sync.

// The smem ring: A (BM,BK,STAGES) then B (BN,BK,STAGES), swizzled.
template <class SA, class SB>
struct SmemRing {
  SA A;
  SB B;
};
template <class Cfg>
CUTE_DEVICE auto smem_ring(unsigned char* smem_raw) {
  using TA = typename Cfg::TA;
  TA* a = reinterpret_cast<TA*>(smem_raw);
  Tensor sA = make_tensor(make_smem_ptr(a), typename Cfg::SmemLayoutA{});
  Tensor sB = make_tensor(make_smem_ptr(a + cosize(typename Cfg::SmemLayoutA{})), typename Cfg::SmemLayoutB{});
  return SmemRing<decltype(sA), decltype(sB)>{sA, sB};
}

// G2S: one thread's share of a k_tile copy. gA (CPY,CPY_M,CPY_K,k_tiles) -> sA
// (CPY,CPY_M,CPY_K,STAGES), cA (CPY,CPY_M,CPY_K) -> (m,k) for the edge predicates; same for B.
template <class GA, class SA, class CA, class GB, class SB, class CB>
struct G2SViews {
  GA gA;
  SA sA;
  CA cA;
  GB gB;
  SB sB;
  CB cB;
};
template <class Cfg, class TGA, class TSA, class TGB, class TSB>
CUTE_DEVICE auto g2s_partition(int tid, TGA const& gA, TSA const& sA, TGB const& gB, TSB const& sB) {
  typename Cfg::G2SCopy g2s;
  auto thr = g2s.get_slice(tid);
  Tensor tAgA = thr.partition_S(gA);
  Tensor tAsA = thr.partition_D(sA);
  Tensor tAcA = thr.partition_S(make_identity_tensor(make_shape(Int<Cfg::BM>{}, Int<Cfg::BK>{})));
  Tensor tBgB = thr.partition_S(gB);
  Tensor tBsB = thr.partition_D(sB);
  Tensor tBcB = thr.partition_S(make_identity_tensor(make_shape(Int<Cfg::BN>{}, Int<Cfg::BK>{})));
  return G2SViews<decltype(tAgA), decltype(tAsA), decltype(tAcA), decltype(tBgB), decltype(tBsB),
                  decltype(tBcB)>{tAgA, tAsA, tAcA, tBgB, tBsB, tBcB};
}

// cp.async of k_tile (A and B) into ring slot `slot`, zero-filled outside (M|N, K). The
// offsets (elements) move the views to another CTA tile (k4 persistent).
template <class Atom, class G2S>
CUTE_DEVICE void g2s_cp_async_k_tile(Atom const& atom, G2S const& v, int k_tile, int slot, int m_limit,
                                     int n_limit, int k_limit, int64_t a_offset = 0, int64_t b_offset = 0) {
  g2s_cp_async(atom, make_tensor(v.gA.data() + a_offset, v.gA.layout())(_, _, _, k_tile), v.sA(_, _, _, slot),
               v.cA, m_limit, k_limit);
  g2s_cp_async(atom, make_tensor(v.gB.data() + b_offset, v.gB.layout())(_, _, _, k_tile), v.sB(_, _, _, slot),
               v.cB, n_limit, k_limit);
}

// S2R: ldmatrix (or scalar) copies of A and B, one thread's sources over the ring
// (CPY,CPY_M,k_blocks,STAGES), and register views of the MMA fragments (CPY,CPY_M,k_blocks).
template <class CA, class SA, class RA, class CB, class SB, class RB>
struct S2RViews {
  CA copy_a;
  SA sA;
  RA rA;
  CB copy_b;
  SB sB;
  RB rB;
};
template <class Cfg, class TiledMma, class TSA, class TSB, class FA, class FB>
CUTE_DEVICE auto s2r_partition(TiledMma const& tiled_mma, int tid, TSA const& sA, TSB const& sB, FA& tCrA,
                               FB& tCrB) {
  auto copy_a = make_tiled_copy_A(typename Cfg::S2RAtom{}, tiled_mma);
  auto copy_b = make_tiled_copy_B(typename Cfg::S2RAtom{}, tiled_mma);
  auto thr_a = copy_a.get_slice(tid);
  auto thr_b = copy_b.get_slice(tid);
  Tensor tAsA = thr_a.partition_S(sA);
  Tensor tCrA_view = thr_a.retile_D(tCrA);
  Tensor tBsB = thr_b.partition_S(sB);
  Tensor tCrB_view = thr_b.retile_D(tCrB);
  return S2RViews<decltype(copy_a), decltype(tAsA), decltype(tCrA_view), decltype(copy_b), decltype(tBsB),
                  decltype(tCrB_view)>{copy_a, tAsA, tCrA_view, copy_b, tBsB, tCrB_view};
}

// ldmatrix of one k_block of A and B into the fragments, from one ring slot's views
// (CPY,CPY_M|N,k_blocks). Slicing the slot once, not per k_block, matters for the FFMA rungs:
// with (k_block, slot) sliced together ptxas merged their scalar LDS into LDS.64 and k2/k3
// fp32 lost ~10% (SASS: 262 -> 149 LDS in k3_f32).
template <class S2R, class SA, class SB>
CUTE_DEVICE void s2r_k_block(S2R& v, SA const& sA_slot, SB const& sB_slot, int k_block) {
  copy(v.copy_a, sA_slot(_, _, k_block), v.rA(_, _, k_block));
  copy(v.copy_b, sB_slot(_, _, k_block), v.rB(_, _, k_block));
}
// The same from (k_block, slot) indexed together: k4's form, whose slot advances inside the
// k_tile loop (at the last k_block). For k4 fp32 this is the form that keeps 346 scalar LDS
// (slot-then-k_block slicing gave 391).
template <class S2R>
CUTE_DEVICE void s2r_k_block(S2R& v, int k_block, int slot) {
  copy(v.copy_a, v.sA(_, _, k_block, slot), v.rA(_, _, k_block));
  copy(v.copy_b, v.sB(_, _, k_block, slot), v.rB(_, _, k_block));
}

// The MMAs of one k_block: tCrD (MMA,MMA_M,MMA_N) += tCrA (MMA,MMA_M) x tCrB (MMA,MMA_N).
// Tensor cores: M outer, N inner in a serpentine, so consecutive HMMA/IMMA share the A
// fragment (4 registers, the larger operand; `.reuse` in the SASS) -- CuTe's default order
// shares B (2 registers). Fewer register-file reads per MMA: on the power-capped H200 this
// measured +2.4% (256x128) and +1.3% (128x256) at 8192^3 in one run (docs/ladder.md).
// FFMA keeps CuTe's order.
template <class TiledMma, class RD, class RA, class RB>
CUTE_DEVICE void mma_k_block(TiledMma const& tiled_mma, RD& tCrD, RA const& tCrA, RB const& tCrB) {
  if constexpr (decltype(size<0>(tCrA))::value > 1) {  // a fragment of several values: tensor core
    CUTE_UNROLL
    for (int m = 0; m < size<1>(tCrD); ++m) {
      CUTE_UNROLL
      for (int n = 0; n < size<2>(tCrD); ++n) {
        const int ns = (m & 1) ? int(size<2>(tCrD)) - 1 - n : n;
        gemm(tiled_mma, tCrD(_, m, ns), tCrA(_, m), tCrB(_, ns), tCrD(_, m, ns));
      }
    }
  } else {
    gemm(tiled_mma, tCrD, tCrA, tCrB, tCrD);
  }
}

// One k_tile from ring slot `slot`: S2R of k_block 0, then per k_block the S2R of the next one
// before this one's MMAs, so ldmatrix latency hides behind the previous MMA batch.
template <class TiledMma, class S2R, class RA, class RB, class RD>
CUTE_DEVICE void mma_k_tile(TiledMma const& tiled_mma, S2R& s2r, int slot, RA const& tCrA, RB const& tCrB,
                            RD& tCrD) {
  constexpr int k_blocks = decltype(size<2>(tCrA))::value;
  Tensor sA = s2r.sA(_, _, _, slot);  // (CPY,CPY_M,k_blocks)
  Tensor sB = s2r.sB(_, _, _, slot);  // (CPY,CPY_N,k_blocks)
  s2r_k_block(s2r, sA, sB, 0);
  CUTE_UNROLL
  for (int k_block = 0; k_block < k_blocks; ++k_block) {
    if (k_block + 1 < k_blocks) s2r_k_block(s2r, sA, sB, k_block + 1);
    mma_k_block(tiled_mma, tCrD, tCrA(_, _, k_block), tCrB(_, _, k_block));
  }
}

}  // namespace pipegemm::kernels::common
