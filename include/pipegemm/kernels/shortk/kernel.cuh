// shortk: GEMMs whose K is a handful of elements (K <= KMAX, e.g. 1-16) -- the output is the work.
//
//   D (M,N) = A (M,K) * B (N,K)^T, any layout of A and B, any alignment, a strided batch and the
//   full epilogue (alpha, beta * C, bias, activation) in fp32.
//
// With K = 2..16 every output costs 2..32 multiply-adds and 2 or 4 bytes of D: the time is D's
// bytes over the DRAM write bandwidth, if the kernel issues few enough instructions an output to
// keep up. The rung is k1's with one k_tile: load -> sync -> compute -> sync -> store.
//
//   fill     A (BM x K) and B (BN x K) into shared memory as they are (16-bit), K-major rows of
//            KMAX + 8 elements (48 bytes: ldmatrix's 8 rows land in 8 bank groups), zero past M, N
//            and K. Element loads through both strides -- every layout and alignment one path --
//            each predicated (no branch), so all of a thread's loads issue before its first store.
//   compute  K padded with zeros to KMAX: each warp a 32-row block of mma.sync m16n8k16
//            (ldmatrix.x4 fragments), fp32 accumulators.
//   store    the accumulators as an fp32 tile in shared memory (over the operands), each row shifted
//            so that D's 16-byte vectors are its 16-byte slots, whatever ldd and the pointer; the
//            general epilogue, if any, once an element in row order (C's reads coalesce); then every
//            row of D in 16-byte vectors, element stores only where a row's ends cut a vector.
//
// Session 32's form (fp32 operands from element loads through 64-bit addresses, FFMA, 4 x 8
// outputs a thread) ran ~1,100 instructions a thread, ~460 of them address setup before its first
// load (SASS): issue-bound, 0.64-0.95 of cuBLASLt on large D and ~5 us where k0 takes 3. This one
// runs ~560 a warp (ncu, 4096x8192x2) and writes 16-byte rows of D at 91-99% of the copy rate (H100).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cute/arch/copy_sm75.hpp>
#include <type_traits>

#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/arch/ld_global.cuh"
#include "pipegemm/arch/st_global.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/common/hmma.cuh"
#include "pipegemm/mechanism.hpp"

namespace pipegemm::kernels::shortk {

// TA, TD: element types (TA 16-bit); BM x BN outputs per CTA; KMAX: the largest K (a multiple of
// the MMA's 16); Name_: the registered variant's tag (its name in the mangled symbol).
template <class TA_, class TD_, int BM_, int BN_, int KMAX_, class Name_>
struct ShortKConfig {
  using TA = TA_;
  using TD = TD_;
  using Name = Name_;
  using Mma = common::Hmma16816F32<TA>;
  static constexpr int BM = BM_, BN = BN_, KMAX = KMAX_;
  static constexpr int kNumThreads = 256, kWarps = kNumThreads / 32;
  // Warps in a kWarpsM x kWarpsN grid, each 32 rows x kWarpN columns.
  static constexpr int kWarpsM = BM / 32, kWarpsN = kWarps / kWarpsM, kWarpN = BN / kWarpsN;
  static constexpr int kMBlocks = 2, kNBlocks = kWarpN / 8, kKSteps = KMAX / 16;
  // An operand's shared row: KMAX + 8 elements, an odd number of 16-byte units, so the 8 rows an
  // ldmatrix reads (and the 8 rows a quarter-warp's 16-byte fill stores write) hit 8 bank groups.
  static constexpr int kLdK = KMAX + 8;
  // The fp32 tile's row: BN + 8 floats, so a half-warp's float2 stores of the fragments (rows g,
  // columns 2t) fall on 16 different bank pairs.
  static constexpr int kLdD = BN + 8;
  static constexpr int kOperandBytes = (BM + BN) * kLdK * 2;
  static constexpr int kStageBytes = BM * kLdD * 4;
  static constexpr int kSmemBytes = kOperandBytes > kStageBytes ? kOperandBytes : kStageBytes;  // static
  static_assert(sizeof(TA) == 2, "mma.sync m16n8k16: 16-bit inputs");
  static_assert(BM % 32 == 0 && kWarps % kWarpsM == 0, "whole warps of 32 rows");
  static_assert(BN % kWarpsN == 0 && kWarpN % 16 == 0 && KMAX % 16 == 0, "whole n8 pairs and k16 steps");
  static_assert((kLdK * 2 / 16) % 2 == 1, "an odd number of 16-byte units a shared row");
  static_assert(kNumThreads % KMAX == 0 && kNumThreads % BM == 0 && kNumThreads % BN == 0 && BN <= kNumThreads,
                "whole passes over each operand tile");
  static_assert(BN % 8 == 0, "8 columns a store");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory");
  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::ldg;  // element LDG, then STS
    m.mma = MmaKind::mma_sync;
    m.pipeline = PipelineKind::single;  // one k_tile: nothing to overlap
    m.order = TileOrder::rows_by_cols;
    m.epilogue = EpilogueKind::smem_staged;  // fp32 tile in smem -> row vectors
    m.load_bytes = int(sizeof(TA));
    return m;
  }();
};

// The operand tile (ROWS x KMAX) -> shared (sT[r * LD + k], as loaded), zero past the problem's rows
// and K. The lanes walk the operand's unit-stride dimension (k for a K-major operand, rows for an
// M/N-major one) so a warp's loads coalesce either way; each thread takes its first element and a
// fixed step, one 64-bit add an element. A thread that holds a whole row (an M/N-major operand of
// kThreads rows) stores it as 16-byte vectors.
template <bool kKFast, int ROWS, int KMAX, int LD, int kThreads, class TA>
__device__ __forceinline__ void fill_tile(uint16_t* sT, const TA* __restrict__ src, int64_t s_row, int64_t s_k,
                                          int rows, int K) {
  constexpr int kPer = ROWS * KMAX / kThreads;
  constexpr int dr = kKFast ? kThreads / KMAX : 0, dk = kKFast ? 0 : kThreads / ROWS;
  const int t = int(threadIdx.x);
  const int r0 = kKFast ? t / KMAX : t % ROWS, k0 = kKFast ? t % KMAX : t / ROWS;
  const TA* p = src + int64_t(r0) * s_row + int64_t(k0) * s_k;
  const int64_t step = kKFast ? int64_t(dr) * s_row : int64_t(dk) * s_k;
  uint16_t x[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j, p += step)
    x[j] = arch::ld_global_nc_b16_or_zero(p, kKFast ? (k0 < K && r0 + j * dr < rows) : (r0 < rows && k0 + j * dk < K));
  if constexpr (!kKFast && dk == 1 && kPer % 8 == 0) {
#pragma unroll
    for (int v = 0; v < kPer / 8; ++v) {
      uint32_t w[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) w[i] = uint32_t(x[8 * v + 2 * i]) | (uint32_t(x[8 * v + 2 * i + 1]) << 16);
      *reinterpret_cast<uint4*>(&sT[r0 * LD + 8 * v]) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < kPer; ++j) sT[(r0 + j * dr) * LD + k0 + j * dk] = x[j];
  }
}

// 16 bytes of D's values at p (aligned: 4 of an f32 D, 8 of a 16-bit one) as one explicit vector store
// (left to the compiler, a 16-bit D's came out as four 4-byte STG.E).
template <class TD>
__device__ __forceinline__ void store_vec(TD* p, const float (&v)[16 / sizeof(TD)]) {
  if constexpr (std::is_same_v<TD, float>)
    arch::st_global_v4(p, make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3])));
  else
    arch::st_global_v4(p, make_uint4(common::pack_pair<TD>(v[0], v[1]), common::pack_pair<TD>(v[2], v[3]),
                                     common::pack_pair<TD>(v[4], v[5]), common::pack_pair<TD>(v[6], v[7])));
}

// The shifted fp32 tile (see the kernel's STORE) to D: each thread an 8-float slot of a row of sD at
// a time, which is one 16-byte vector of D's row (two of an f32 D); a vector that the row's ends cut
// is written element by element. kSlots a row: BN / 8 where every shift is 0, one more otherwise.
// Unrolled to its compile-time count, each step predicated: a thread's slots are independent (as a
// run-time loop each trip waited for its LDS: ~1 us on a tiny grid, session 33).
template <class Cfg, int kSlots, class Shift>
__device__ __forceinline__ void store_slots(const float* sD, typename Cfg::TD* d_tile, int64_t ldd, int rows,
                                            int cols, const Shift& shift) {
  using TD = typename Cfg::TD;
  constexpr int kVecD = 16 / int(sizeof(TD)), kThreads = Cfg::kNumThreads;
  constexpr int kSteps = (Cfg::BM * kSlots + kThreads - 1) / kThreads;
  const int tid = int(threadIdx.x);
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    const int q = tid + i * kThreads, r = q / kSlots, u = q % kSlots;
    if (r >= rows) continue;  // also q past the last slot
    const int c0 = 8 * u - shift(r);  // D's column of the slot's first element
    if (c0 >= cols) continue;
    const float4 lo = *reinterpret_cast<const float4*>(&sD[r * Cfg::kLdD + 8 * u]);
    const float4 hi = *reinterpret_cast<const float4*>(&sD[r * Cfg::kLdD + 8 * u + 4]);
    const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    TD* p = d_tile + r * ldd + c0;
#pragma unroll
    for (int h = 0; h < 8; h += kVecD) {
      if (c0 + h >= 0 && c0 + h + kVecD <= cols) {
        store_vec<TD>(p + h, *reinterpret_cast<const float(*)[kVecD]>(v + h));
      } else {
#pragma unroll
        for (int j = h; j < h + kVecD; ++j)
          if (c0 + j >= 0 && c0 + j < cols) p[j] = TD(v[j]);
      }
    }
  }
}

// CTAs an SM: 4 (32 warps) in 64 registers.
constexpr int kMinBlocks = 4;

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, kMinBlocks)
    shortk_kernel(const common::FullArgs<typename Cfg::TA, typename Cfg::TD> args) {
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, KMAX = Cfg::KMAX, kLdK = Cfg::kLdK, kLdD = Cfg::kLdD;
  constexpr int kThreads = Cfg::kNumThreads;
  __shared__ __align__(16) unsigned char smem[Cfg::kSmemBytes];
  uint16_t* sA = reinterpret_cast<uint16_t*>(smem);
  uint16_t* sB = sA + BM * kLdK;
  float* sD = reinterpret_cast<float*>(smem);  // the store phase's, once sA and sB are read
  const int tid = int(threadIdx.x), lane = tid % 32;
  const int wm = 32 * (tid / 32 / Cfg::kWarpsN), wn = Cfg::kWarpN * (tid / 32 % Cfg::kWarpsN);  // the warp's block
  const int M = args.m, N = args.n, K = args.k;
  const int64_t m0 = int64_t(blockIdx.y) * BM, n0 = int64_t(blockIdx.x) * BN;
  const int rows = M - m0 < BM ? int(M - m0) : BM, cols = N - n0 < BN ? int(N - n0) : BN;
  const common::EpilogueArgs& ep = args.epi;
  const bool plain = ep.alpha == 1.f && !ep.c && !ep.bias && ep.act == Activation::none;
  constexpr int kVecD = 16 / int(sizeof(TD));

  // Programmatic dependent launch (a no-op unless launched with it): no global access above.
  arch::griddep_wait();
  arch::griddep_launch_dependents();

#pragma unroll 1
  for (int bt = blockIdx.z; bt < args.batch; bt += gridDim.z) {
    if (bt != int(blockIdx.z)) __syncthreads();  // the previous product's store phase is done with sD
    // ===== FILL: both tiles, every load issued before the first store ==========================
    const auto* a = args.a + bt * args.stride_a + m0 * args.a_sm;
    const auto* b = args.b + bt * args.stride_b + n0 * args.b_sn;
    if (args.a_sk == 1)
      fill_tile<true, BM, KMAX, kLdK, kThreads>(sA, a, args.a_sm, args.a_sk, rows, K);
    else
      fill_tile<false, BM, KMAX, kLdK, kThreads>(sA, a, args.a_sm, args.a_sk, rows, K);
    if (args.b_sk == 1)
      fill_tile<true, BN, KMAX, kLdK, kThreads>(sB, b, args.b_sn, args.b_sk, cols, K);
    else
      fill_tile<false, BN, KMAX, kLdK, kThreads>(sB, b, args.b_sn, args.b_sk, cols, K);
    __syncthreads();

    // ===== COMPUTE: the warp's 32 x kWarpN block, mma.sync over the zero-padded K ===============
    float acc[Cfg::kMBlocks][Cfg::kNBlocks][4] = {};
#pragma unroll
    for (int s = 0; s < Cfg::kKSteps; ++s) {
      uint32_t fa[Cfg::kMBlocks][4], fb[Cfg::kNBlocks][2];
      // ldmatrix.x4: lanes 8q..8q+7 address matrix q's rows. A: (rows 0-7 | 8-15) x (k 0-7 | 8-15)
      // = a0..a3; B: one n8 block's k 0-7, k 8-15, then the next block's = b0, b1 of two MMAs.
#pragma unroll
      for (int i = 0; i < Cfg::kMBlocks; ++i)
        cute::SM75_U32x4_LDSM_N::copy(
            *reinterpret_cast<const cute::uint128_t*>(&sA[(wm + 16 * i + (lane & 15)) * kLdK + 16 * s + (lane >> 4) * 8]),
            fa[i][0], fa[i][1], fa[i][2], fa[i][3]);
#pragma unroll
      for (int j = 0; j < Cfg::kNBlocks; j += 2) {
        const int n = wn + 8 * j + (lane >> 4) * 8 + (lane & 7);
        cute::SM75_U32x4_LDSM_N::copy(
            *reinterpret_cast<const cute::uint128_t*>(&sB[n * kLdK + 16 * s + ((lane >> 3) & 1) * 8]), fb[j][0],
            fb[j][1], fb[j + 1][0], fb[j + 1][1]);
      }
#pragma unroll
      for (int i = 0; i < Cfg::kMBlocks; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kNBlocks; ++j) {
          float* c = acc[i][j];
          Cfg::Mma::fma(c[0], c[1], c[2], c[3], fa[i][0], fa[i][1], fa[i][2], fa[i][3], fb[j][0], fb[j][1], c[0], c[1],
                        c[2], c[3]);
        }
    }

    // ===== STORE: fp32 tile in smem, the epilogue, rows of D ===================================
    // Row r of the tile sits in sD shifted right by shift(r) = (D's row address % 16) / sizeof(TD)
    // elements, so each 16-byte vector of D's row is one aligned 16-byte slot of sD's row, whatever
    // ldd and the pointer: every row leaves in 16-byte vectors but for its partial first and last
    // slot. (Rows off 16 bytes went out in 4-byte words at 68-76% of the copy rate against 91-99%
    // for 16-byte rows, session 33.) shift(r) = (shift(0) + r * ldd) mod kVecD: D's elements are
    // aligned to their size. The pad of 8 floats a row holds the shift.
    TD* const d = args.d + bt * args.stride_d;
    TD* const d_tile = d + m0 * args.ldd + n0;
    const int shift0 = int(reinterpret_cast<uintptr_t>(d_tile) % 16) / int(sizeof(TD));
    const int ldd_mod = int(args.ldd % kVecD);
    const bool vec_rows = shift0 == 0 && ldd_mod == 0;  // every shift 0: no slot past BN
    const auto shift = [&](int r) { return (shift0 + r * ldd_mod) & (kVecD - 1); };
    __syncthreads();  // every warp is done reading sA, sB: sD takes their place
    {
      const int g = lane >> 2, t2 = 2 * (lane & 3);
#pragma unroll
      for (int i = 0; i < Cfg::kMBlocks; ++i) {
        // Element stores (float2 where every shift is 0 as a second path cost spills at 64 registers).
        const int r = wm + 16 * i + g;
        float* d0 = &sD[r * kLdD + shift(r) + wn + t2];
        float* d1 = &sD[(r + 8) * kLdD + shift(r + 8) + wn + t2];
#pragma unroll
        for (int j = 0; j < Cfg::kNBlocks; ++j) {
          d0[8 * j] = acc[i][j][0], d0[8 * j + 1] = acc[i][j][1];
          d1[8 * j] = acc[i][j][2], d1[8 * j + 1] = acc[i][j][3];
        }
      }
    }
    __syncthreads();
    if (!plain) {  // alpha, beta * C, bias, activation: once an element, consecutive threads along a row
#pragma unroll 1
      for (int e = tid; e < BM * BN; e += kThreads) {
        const int r = e / BN, c = e % BN;
        if (r >= rows || c >= cols) continue;
        const int64_t gm = m0 + r, gn = n0 + c;
        float& v = sD[r * kLdD + shift(r) + c];
        v = common::activate(common::epilogue_linear<TD>(v, ep, common::c_element<TD>(ep, bt, gm, gn), gm, gn), ep.act);
      }
      __syncthreads();
    }
    if (vec_rows)
      store_slots<Cfg, BN / 8>(sD, d_tile, args.ldd, rows, cols, shift);
    else
      store_slots<Cfg, BN / 8 + 1>(sD, d_tile, args.ldd, rows, cols, shift);
  }
}

}  // namespace pipegemm::kernels::shortk
