// What every rung of the ladder shares per data type: the MMA instruction, the 128-bit vector
// that global -> shared copies move, the swizzled shared-memory atom, the shared -> register
// atom, and the tiled MMA for a warp layout. One place, so k1..k4 differ only in their K loop.
//
//   f16  / bf16 : mma.sync m16n8k16 (HMMA), fp32 or (f16 only) fp16 accumulators, ldmatrix.x4
//   int8        : mma.sync m16n8k32 (IMMA), int32 accumulators, ldmatrix.x4 (TN: both K-major)
//   fp32        : one FFMA per (m,n,k) per thread (CuTe UniversalFMA), scalar shared loads
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/introspect/mechanism.hpp"

#include <cstdint>
#include <type_traits>

namespace pipegemm::kernels::common {

using namespace cute;

template <class TA, class TAcc>
struct MmaOpFor;
template <> struct MmaOpFor<half_t, float>    { using Op = SM80_16x8x16_F32F16F16F32_TN; };
template <> struct MmaOpFor<half_t, half_t>   { using Op = SM80_16x8x16_F16F16F16F16_TN; };
template <> struct MmaOpFor<bfloat16_t, float> { using Op = SM80_16x8x16_F32BF16BF16F32_TN; };
template <> struct MmaOpFor<int8_t, int32_t>  { using Op = SM80_16x8x32_S32S8S8S32_TN; };
template <> struct MmaOpFor<float, float>     { using Op = UniversalFMA<float, float, float, float>; };

// TA: A/B element; TAcc: accumulator; TD: output element.
template <class TA_, class TAcc_, class TD_>
struct OperandTraits {
  using TA = TA_;
  using TAcc = TAcc_;
  using TD = TD_;
  using MmaOp = typename MmaOpFor<TA, TAcc>::Op;
  static constexpr bool kTensorCore = !std::is_same_v<TA, float>;
  static constexpr MmaKind kMma = kTensorCore ? MmaKind::mma_sync : MmaKind::ffma;
  // K of one MMA instruction = the k_block width.
  static constexpr int kMmaK = kTensorCore ? int(size<2>(typename MMA_Traits<MmaOp>::Shape_MNK{})) : 1;
  // One 128-bit vector of A/B elements: the unit of every global -> shared copy, and so the
  // alignment (pointer and leading dimension) and K granularity the vector paths require.
  static constexpr int kVec = 16 / int(sizeof(TA));
  static constexpr int kVecD = 16 / int(sizeof(TD));  // epilogue store vector

  // Shared-memory atom: 8 rows x (up to 128 bytes of K), XOR-swizzled in 16-byte chunks so a
  // column of 8 ldmatrix rows (or 8 cp.async writes) hits 8 different bank groups.
  template <int BK>
  static constexpr int kAtomK = (BK * int(sizeof(TA)) >= 128) ? 128 / int(sizeof(TA)) : BK;
  template <int BK>
  static constexpr int kSwizzleBits = (kAtomK<BK> * int(sizeof(TA)) == 128) ? 3
                                      : (kAtomK<BK> * int(sizeof(TA)) == 64) ? 2 : 1;
  template <int BK>
  using SmemAtom = decltype(composition(
      Swizzle<kSwizzleBits<BK>, (sizeof(TA) == 1 ? 4 : sizeof(TA) == 2 ? 3 : 2), 3>{},
      make_layout(make_shape(Int<8>{}, Int<kAtomK<BK>>{}), make_stride(Int<kAtomK<BK>>{}, Int<1>{}))));

  // S2R: ldmatrix.x4 for tensor cores (4 8x8 b16 matrices = a 16x16 half / 16x32 int8 slab);
  // element loads for FFMA.
  using S2RAtom = std::conditional_t<kTensorCore, Copy_Atom<SM75_U32x4_LDSM_N, TA>,
                                     Copy_Atom<UniversalCopy<TA>, TA>>;

  // G2S tiled copies: threads along K in 16-byte vectors, rows over the rest of the CTA.
  template <int kThreads, int BK, class CopyOp>
  using G2SCopy = decltype(make_tiled_copy(
      Copy_Atom<CopyOp, TA>{},
      make_layout(make_shape(Int<kThreads / (BK / kVec)>{}, Int<BK / kVec>{}),
                  make_stride(Int<BK / kVec>{}, Int<1>{})),
      make_layout(make_shape(Int<1>{}, Int<kVec>{}))));

  // Tiled MMA over WM x WN warps. Tensor cores: N is permuted to 16 per warp so one
  // ldmatrix.x4 feeds two n8 MMAs of B; FFMA: a 16x16 thread grid, each thread (BM/16)x(BN/16).
  template <int WM, int WN>
  using TiledMma = std::conditional_t<
      kTensorCore,
      decltype(make_tiled_mma(MMA_Atom<MmaOp>{}, make_layout(make_shape(Int<WM>{}, Int<WN>{}, Int<1>{})),
                              Tile<Int<WM * 16>, Int<WN * 16>, Int<kMmaK>>{})),
      decltype(make_tiled_mma(MMA_Atom<MmaOp>{}, make_layout(make_shape(Int<16>{}, Int<16>{}, Int<1>{}))))>;
};

// The converting store every epilogue uses: accumulators -> output element.
template <class TD, class TAcc>
CUTE_HOST_DEVICE TD convert_acc(TAcc x) {
  if constexpr (std::is_same_v<TD, TAcc>) return x;
  else return TD(x);
}

}  // namespace pipegemm::kernels::common
