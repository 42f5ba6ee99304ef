// The fused epilogue (the general form's): alpha, beta * C, bias and activation applied to the
// fp32 accumulators before the cast, then the store epilogue's chunks, TMA-stored at the tile's
// product of a rank-3 D (batch).
//
//   EpilogueFused<TOut, EPI_BUFS>   pairs with MainloopTmaWgmmaBatched (rank-3 maps, either layout)
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/ld_global.cuh"
#include "pipegemm/arch/ld_shared.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/sm90/epilogue_store.cuh"
#include "pipegemm/sm90/named_barriers.cuh"

namespace pipegemm::sm90 {

// What the general form takes beyond the tensor maps: the batch (each operand's map is rank 3; a
// broadcast operand's has one matrix and is always read at product 0) and the epilogue.
struct FusedArgs {
  int batch;
  int a_bcast, b_bcast;  // 1: the operand is the same matrix for every product
  kernels::common::EpilogueArgs epi;
};

// The bias of a tile goes through shared memory: each consumer warpgroup's 128 threads load
// BN / 128 elements each (row m0 + t or column n0 + t; zero past the edge) when the tile starts,
// hold their bits through the mainloop -- the loads' latency hides under the wgmma (early,
// volatile loads: plain ones were sunk to their use) -- and store them to smem.bias before the
// epilogue. Loaded element by element in the epilogue, the 64 bias values a thread needs cost 4%
// of a 4096^3 GEMM (H200), more than the GELU.
// When: under the mainloop (after k_tile kBiasStageKt's wgmma is issued), so the epilogue only
// reads it. Cooperative: both consumers store the same tile's same bits into one buffer (no smem
// for two), each behind its own barrier, so neither waits for the other -- a barrier of all 256
// held them in lockstep at every tile's epilogue. A consumer past k_tile STAGES of a
// tile has had that slot refilled, so the other consumer released the tile's first slot: its
// previous epilogue has read the buffer. Ping-pong: each consumer its own buffer, from k_tile 0.
// A cooperative tile of at most STAGES k_tiles (short K) stages in the epilogue, behind the
// 256-thread barrier kBiasBarrier.
template <class Cfg>
constexpr int kBiasStageKt = Cfg::kPingpong ? 0 : Cfg::STAGES;
// A column's slot: the fragment's thread with lane % 4 = q reads columns 8j + 2q + {0, 1} (every
// j), so quarter q holds them contiguously -- 16-byte loads -- in a row of kBiasStride floats,
// padded so that the four quarters start on different banks.
template <int BN>
constexpr int kBiasStride = BN / 4 + 4;
template <int BN>
__host__ __device__ constexpr int bias_slot(int col) {
  return (col % 8) / 2 * kBiasStride<BN> + 2 * (col / 8) + col % 2;
}
// The layout apply_epilogue reads: every column its own slot inside BN + 16 floats, and quarter q
// holding columns 8j + 2q + {0, 1} for j = 0, 1, ... at slots 2j, 2j + 1 of its row (16-byte loads
// of two n8 blocks' pairs).
template <int BN>
__host__ __device__ constexpr bool bias_slots_as_read() {
  for (int c = 0; c < BN; ++c) {
    const int q = (c % 8) / 2, j = c / 8;
    if (bias_slot<BN>(c) != q * kBiasStride<BN> + 2 * j + c % 2 || bias_slot<BN>(c) >= BN + 16) return false;
    for (int d = 0; d < c; ++d)
      if (bias_slot<BN>(d) == bias_slot<BN>(c)) return false;
  }
  return kBiasStride<BN> % 4 == 0 && (kBiasStride<BN> / 4) % 2 == 1;  // 16-byte rows, quarters on different banks
}
template <class Cfg>
__device__ __forceinline__ uint32_t load_tile_bias(const kernels::common::EpilogueArgs& e, int m0, int n0, int M, int N, int t) {
  if (!e.bias) return 0;
  const bool col = e.bias_mode == Bias::per_col;
  const int i = col ? n0 + t : m0 + t;
  if (!(col ? i < N : t < Cfg::BM && i < M)) return 0;  // 0 bits: 0.0 in every type
  if (e.bias_type == DType::f32) return arch::ld_global_nc_b32(static_cast<const float*>(e.bias) + i);
  return arch::ld_global_nc_early_b16(static_cast<const uint16_t*>(e.bias) + i);
}
// By `threads` threads sharing named barrier `barrier` (a consumer's 128 under the mainloop, or
// both consumers' 256 after a short one): the first barrier waits until all of them have read
// the previous tile's bias, the second until this tile's is complete. Thread t (of its consumer)
// stores elements t, t + 128, ..., scaled by `scale` (the GELU takes v / 2: apply_epilogue), per
// column in their bias_slot.
template <int BN, int N>
__device__ __forceinline__ void stage_tile_bias(float* sbias, const uint32_t (&bits)[N], DType type, bool per_col,
                                                float scale, int t, int barrier, int threads) {
  float v[N];
#pragma unroll
  for (int j = 0; j < N; ++j)
    v[j] = scale * (type == DType::f32   ? __uint_as_float(bits[j])
                    : type == DType::f16 ? __half2float(__ushort_as_half(uint16_t(bits[j])))
                                         : __bfloat162float(__ushort_as_bfloat16(uint16_t(bits[j]))));
  arch::named_barrier_sync(barrier, threads);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int i = t + j * 128;
    arch::sts_f32(arch::smem_u32(sbias + (per_col ? bias_slot<BN>(i) : i)), v[j]);
  }
  arch::named_barrier_sync(barrier, threads);
}

// C's pairs of adjacent columns can be loaded whole: ldc and the batch stride even (in elements),
// the pointer aligned to a pair, and N even -- a pair starting at column N - 1 would read one
// element past the row (past C's end on its last row): the packed form takes odd N.
__device__ __forceinline__ bool c_pairs_aligned(const kernels::common::EpilogueArgs& e, int N) {
  const int64_t pair_bytes = e.c_type == DType::f32 ? 8 : 4;
  return reinterpret_cast<uintptr_t>(e.c) % pair_bytes == 0 && e.ldc % 2 == 0 && e.stride_c % 2 == 0 && N % 2 == 0;
}
// n8 blocks of C read per batch of pair loads (2 per block in flight a thread): 8 (four rounds
// of L2 latency a 64x256 consumer tile). A build knob (-DPIPEGEMM_K5_C_GROUP=16) so that 16 and
// 32 can be timed without a variant per value. At most the tile's blocks, and 16 for an f32 C
// (8-byte pairs): at 32, ptxas spilled 56-76 bytes there; none at 16, nor for 16-bit C at 32
// (ptxas -v).
#ifndef PIPEGEMM_K5_C_GROUP
#define PIPEGEMM_K5_C_GROUP 8
#endif
template <class Cfg, class TC>
constexpr int kCGroup = std::min(Cfg::kAccRegs / 4, sizeof(TC) == 4 ? std::min(PIPEGEMM_K5_C_GROUP, 16) : PIPEGEMM_K5_C_GROUP);
// acc += beta * C for the thread's elements, C (of type TC: f32 or D's) at c for (r0, c0) and
// c + row8 for (r0 + 8, c0): groups of G n8 blocks, each one batch of 2G pair loads, then the FMAs.
template <class Cfg, class TC, int G>
__device__ __forceinline__ void add_c_pairs(float (&acc)[Cfg::kAccRegs], const TC* c, int64_t row8, float beta, int r0,
                                            int c0, int M, int N) {
  using Pair = std::conditional_t<sizeof(TC) == 4, float2, uint32_t>;
  constexpr int kBlocks = Cfg::kAccRegs / 4;
  static_assert(kBlocks % G == 0, "whole groups");
#pragma unroll
  for (int g = 0; g < kBlocks; g += G) {
    Pair v[G][2];
#pragma unroll
    for (int jj = 0; jj < G; ++jj)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = c0 + 8 * (g + jj);
        v[jj][h] = r0 + 8 * h < M && col < N ? *reinterpret_cast<const Pair*>(c + h * row8 + 8 * (g + jj)) : Pair{};
      }
#pragma unroll
    for (int jj = 0; jj < G; ++jj)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float2 f;
        if constexpr (sizeof(TC) == 4) {
          f = v[jj][h];
        } else if constexpr (std::is_same_v<TC, __half>) {
          f = __half22float2(*reinterpret_cast<const __half2*>(&v[jj][h]));
        } else {
          f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v[jj][h]));
        }
        float* a = &acc[4 * (g + jj) + 2 * h];
        a[0] = fmaf(beta, f.x, a[0]);
        a[1] = fmaf(beta, f.y, a[1]);
      }
    // One group of loads in flight at a time (the registers they take are the limit).
    asm volatile("" ::: "memory");
  }
}

// alpha, beta * C, bias, activation on a consumer warpgroup's (64, BN) fp32 accumulators:
// thread (warp w, lane l) holds acc[4j + 2h + q] = row 16w + 8h + l/4, column 8j + 2(l%4) + q
// (arch/wgmma.cuh); row0/col0 is the fragment's first element in D, bt the product; sbias the
// tile's bias (stage_tile_bias, scaled by bias_scale(e)), srow0 the fragment's first row in the
// CTA tile. Phases, each one loop over the accumulators behind one uniform branch: alpha and C;
// the scale and the bias in one FFMA; the activation. C reads are predicated on the M/N
// edges (the TMA store clips the rest), one element at a time: grouping them into arrays (16 or
// 64 values) spilled 1-2 KB under the launch bound's 168 registers, which ptxas allocates
// whatever setmaxnreg gives the consumers later.
// The GELU (tanh form) works on v / 2 (kernels::common::gelu_tanh_of_half): the bias is staged halved.
__device__ __forceinline__ float bias_scale(const kernels::common::EpilogueArgs& e) {
  return e.act == Activation::gelu_tanh ? 0.5f : 1.f;
}

template <class Cfg>
__device__ __forceinline__ void apply_epilogue(float (&acc)[Cfg::kAccRegs], const kernels::common::EpilogueArgs& e, int row0,
                                               int col0, int bt, int M, int N, int tid_wg, const float* sbias,
                                               int srow0) {
  constexpr int kBlocks = Cfg::kAccRegs / 4;  // n8 blocks
  const int lane = tid_wg % 32;
  const int r0 = row0 + 16 * (tid_wg / 32) + (lane >> 2);
  const int c0 = col0 + 2 * (lane & 3);
  float scale = e.alpha;  // applied with the bias below, or here before beta C
  if (e.c && e.alpha != 1.f) {
#pragma unroll
    for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] *= e.alpha;
  }
  if (e.c) scale = 1.f;
  constexpr DType kDType = sizeof(typename Cfg::TD) == 4                        ? DType::f32
                           : std::is_same_v<typename Cfg::TD, __half> ? DType::f16
                                                                        : DType::bf16;
  if (e.c && e.c_type == kDType && c_pairs_aligned(e, N)) {
    // C in D's type: a thread's elements come in pairs of adjacent columns (q = 0, 1; N even),
    // one 4-byte (16-bit) or 8-byte (f32) load per pair, 16 of them in flight per group of 8 n8
    // blocks, so a tile waits for C about once per group rather than once per element
    // (element loads made beta C cost 19% at 4096^3, H200). An f32 C under a 16-bit D takes
    // the element loads below: with both pair types in the kernel, ptxas spilled.
    const int64_t c_row = int64_t(bt) * e.stride_c + int64_t(r0) * e.ldc + c0;  // (r0, c0); row r0 + 8: + 8 ldc
    add_c_pairs<Cfg, typename Cfg::TD, kCGroup<Cfg, typename Cfg::TD>>(acc, static_cast<const typename Cfg::TD*>(e.c) + c_row,
                                                                       8 * e.ldc, e.beta, r0, c0, M, N);
  } else if (e.c) {
#pragma unroll
    for (int j = 0; j < kBlocks; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const int r = r0 + 8 * h, col = c0 + 8 * j + q;
          if (r < M && col < N)
            acc[4 * j + 2 * h + q] =
                fmaf(e.beta, kernels::common::load_as_float(e.c, int64_t(bt) * e.stride_c + int64_t(r) * e.ldc + col, e.c_type),
                     acc[4 * j + 2 * h + q]);
        }
  }
  // v = scale * acc + bias in one FFMA; for the GELU, v / 2 (its bias staged halved).
  const float s = scale * bias_scale(e);
  if (e.bias) {  // zeros past the edges (load_tile_bias)
    if (e.bias_mode == Bias::per_col) {
      static_assert(kBlocks % 2 == 0, "two n8 blocks' bias pairs per 16-byte load");
      const uint32_t q_row = arch::smem_u32(sbias + (lane & 3) * kBiasStride<Cfg::BN>);
#pragma unroll
      for (int j = 0; j < kBlocks; j += 2) {
        const float4 b = arch::lds_v4_f32(q_row + 4 * 2 * j);  // columns 8j + 2q + {0,1}, 8(j+1) + 2q + {0,1}
        acc[4 * j + 0] = fmaf(acc[4 * j + 0], s, b.x), acc[4 * j + 1] = fmaf(acc[4 * j + 1], s, b.y);
        acc[4 * j + 2] = fmaf(acc[4 * j + 2], s, b.x), acc[4 * j + 3] = fmaf(acc[4 * j + 3], s, b.y);
        acc[4 * j + 4] = fmaf(acc[4 * j + 4], s, b.z), acc[4 * j + 5] = fmaf(acc[4 * j + 5], s, b.w);
        acc[4 * j + 6] = fmaf(acc[4 * j + 6], s, b.z), acc[4 * j + 7] = fmaf(acc[4 * j + 7], s, b.w);
      }
    } else {
      const float b0 = arch::lds_f32(arch::smem_u32(sbias + srow0 + r0 - row0));
      const float b1 = arch::lds_f32(arch::smem_u32(sbias + srow0 + r0 - row0 + 8));
#pragma unroll
      for (int j = 0; j < kBlocks; ++j) {
        acc[4 * j + 0] = fmaf(acc[4 * j + 0], s, b0), acc[4 * j + 1] = fmaf(acc[4 * j + 1], s, b0);
        acc[4 * j + 2] = fmaf(acc[4 * j + 2], s, b1), acc[4 * j + 3] = fmaf(acc[4 * j + 3], s, b1);
      }
    }
  } else if (s != 1.f) {
#pragma unroll
    for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] *= s;
  }
  switch (e.act) {  // one loop per activation: the switch is outside the accumulators
    case Activation::relu:
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = kernels::common::activate(acc[i], Activation::relu);
      break;
    case Activation::gelu_tanh:  // acc holds v / 2
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = kernels::common::gelu_tanh_of_half(acc[i]);
      break;
    case Activation::gelu_erf:
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = kernels::common::activate(acc[i], Activation::gelu_erf);
      break;
    default: break;
  }
}

template <class TOut, int EPI_BUFS>
struct EpilogueFused {
  using TD = TOut;
  static constexpr int kEpiBufs = EPI_BUFS;
  static constexpr bool kDeferredStore = false, kFused = true;

  template <class Cfg>
  struct Collective {
    static constexpr int kBiasPerThread = Cfg::BN / 128;  // each consumer's 128 threads stage the bias
    static_assert(Cfg::BM <= Cfg::BN + 16 && Cfg::BN % 128 == 0,
                  "a per-row bias fits the bias row; whole elements per thread");
    static_assert(bias_slots_as_read<Cfg::BN>(), "the per-column bias layout apply_epilogue reads");
    static_assert(Cfg::kMBlocks == 1, "the epilogue code handles one m64 block");
    const kernels::common::EpilogueArgs& epi;
    typename Cfg::Smem& smem;
    const int& M;
    const int& N;
    using Registers = uint32_t[1];
    __device__ __forceinline__ Collective(Registers&, const int&, const FusedArgs& general, typename Cfg::Smem& smem_,
                                          const int& M_, const int& N_)
        : epi(general.epi), smem(smem_), M(M_), N(N_) {}
    // The consumer's bias buffer (ping-pong: each its own tile's).
    __device__ __forceinline__ float* sbias(const EpilogueContext& x) const {
      return smem.bias[Cfg::kPingpong ? x.consumer : 0];
    }

    // This thread's elements of the tile's bias (their bits), staged under the mainloop (kBiasStageKt).
    struct Tile {
      uint32_t bias_v[kBiasPerThread];
    };
    __device__ __forceinline__ Tile begin_tile(EpilogueContext x, int m0, int n0, pipeline::SegmentRole role) {
      Tile t{};
      if (role != pipeline::SegmentRole::part) {  // a part has no epilogue
#pragma unroll
        for (int j = 0; j < kBiasPerThread; ++j) t.bias_v[j] = load_tile_bias<Cfg>(epi, m0, n0, M, N, x.tid_wg + j * 128);
      }
      return t;
    }
    // The tile's bias into smem while this k_tile's wgmma runs.
    __device__ __forceinline__ void under_mainloop(EpilogueContext x, Tile& t, const int& kt, const int& k0,
                                                   const int& k1, const pipeline::SegmentRole& role) {
      if (epi.bias && role != pipeline::SegmentRole::part && kt == k0 + kBiasStageKt<Cfg> && k1 - k0 > kBiasStageKt<Cfg>)
        stage_tile_bias<Cfg::BN>(sbias(x), t.bias_v, epi.bias_type, epi.bias_mode == Bias::per_col, bias_scale(epi),
                                 x.tid_wg, kConsumerBarrier + x.consumer, 128);
    }
    __device__ __forceinline__ void end_tile(EpilogueContext x, Tile& t,
                                             typename Cfg::TAcc (&blk)[Cfg::kMBlocks][Cfg::kAccRegs], int m0, int n0,
                                             int bt, int k0, int k1) {
      if (epi.bias && k1 - k0 <= kBiasStageKt<Cfg>)  // short K: not staged under the mainloop
        stage_tile_bias<Cfg::BN>(sbias(x), t.bias_v, epi.bias_type, epi.bias_mode == Bias::per_col, bias_scale(epi),
                                 x.tid_wg, kBiasBarrier, 256);
      float* sb = sbias(x);
      apply_epilogue<Cfg>(blk[0], epi, m0 + x.row_c, n0, bt, M, N, x.tid_wg, sb, x.row_c);
      constexpr auto kChunkSeq = std::make_integer_sequence<int, Cfg::kEpiChunks>{};
      store_d_tile<Cfg>(blk[0], x.d_bufs, x.tmap_d, m0 + x.row_c, n0, x.consumer, x.tid_wg, kChunkSeq, bt);
    }
    __device__ __forceinline__ void finish(EpilogueContext) {}
  };
};

}  // namespace pipegemm::sm90
