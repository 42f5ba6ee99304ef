// The shared-memory tile vocabulary of rungs k1..k4: the config every family derives from
// (tile, ring depth, swizzled smem layouts, copies, tiled MMA, smem budget) and the inner
// k_block loop that consumes one smem stage (S2R with next-k_block prefetch, then MMA).
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/operand_traits.cuh"
#include "pipegemm/kernels/common/tile_io.cuh"

namespace pipegemm::kernels::common {

using namespace cute;

inline constexpr int kSmemPerBlockOptin = 227 * 1024;  // sm_90 (sm_80: 163 KB, checked at launch)

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

  static_assert(BK % Ops::kVec == 0 && kNumThreads % (BK / Ops::kVec) == 0,
                "a k_tile row is whole 16-byte vectors spread over whole threads");
  static_assert((BM * BK / Ops::kVec) % kNumThreads == 0 && (BN * BK / Ops::kVec) % kNumThreads == 0,
                "every thread copies the same number of vectors per k_tile");
  static_assert(BK % Ops::kMmaK == 0, "a k_tile is whole k_blocks");
  static_assert(BM % 8 == 0 && BN % 8 == 0, "whole 8-row swizzle atoms");
  static_assert(kRingBytes <= kSmemPerBlockOptin, "the ring must fit the per-CTA smem opt-in");
};

// One k_tile from one smem stage: S2R of k_block 0, then per k_block the S2R of the next one
// before this one's MMA, so ldmatrix latency hides behind the previous MMA batch.
// tXsX_stage: (CPY,CPY_M,k_blocks) of the stage; views/fragments: (.., k_blocks).
template <class TiledMma, class CopyA, class SA, class VA, class RA, class CopyB, class SB, class VB,
          class RB, class RD>
CUTE_DEVICE void mma_k_tile(TiledMma const& tiled_mma, CopyA const& s2r_a, SA const& tAsA, VA& tCrA_view,
                            RA const& tCrA, CopyB const& s2r_b, SB const& tBsB, VB& tCrB_view,
                            RB const& tCrB, RD& tCrD) {
  constexpr int k_blocks = decltype(size<2>(tCrA))::value;
  copy(s2r_a, tAsA(_, _, 0), tCrA_view(_, _, 0));
  copy(s2r_b, tBsB(_, _, 0), tCrB_view(_, _, 0));
  CUTE_UNROLL
  for (int k_block = 0; k_block < k_blocks; ++k_block) {
    if (k_block + 1 < k_blocks) {
      copy(s2r_a, tAsA(_, _, k_block + 1), tCrA_view(_, _, k_block + 1));
      copy(s2r_b, tBsB(_, _, k_block + 1), tCrB_view(_, _, k_block + 1));
    }
    gemm(tiled_mma, tCrD, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrD);
  }
}

}  // namespace pipegemm::kernels::common
