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
//   store    the accumulators as an fp32 tile in shared memory (over the operands); the general
//            epilogue, if any, once an element in row order (C's reads coalesce); then each row of
//            D in 16-byte vectors where D's rows allow, else a warp a row in 4-byte words.
//
// The FFMA form this replaced (fp32 operands from element loads through 64-bit addresses, 4 x 8
// outputs a thread; docs/shortk.md) ran ~1,100 instructions a thread, ~460 of them address setup before its first
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
#include "pipegemm/introspect/mechanism.hpp"

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
// kThreads rows) stores it as 16-byte vectors. KP (4, 8 or KMAX, the kernel picks the least >= K):
// only k < KP is loaded -- a K-major operand KP lanes a row -- and k in [KP, KMAX) is stored as
// zeros: a predicated-off load still takes an issue slot, and with KMAX lanes a row at K = 2 seven
// eighths of them were (~7 instructions an element, ~112 a thread for a 256-row tile; H100 SASS).
template <bool kKFast, int KP, int ROWS, int KMAX, int LD, int kThreads, class TA>
__device__ __forceinline__ void fill_tile(uint16_t* sT, const TA* __restrict__ src, int64_t s_row, int64_t s_k,
                                          int rows, int K) {
  static_assert(KMAX % KP == 0 && kThreads % KP == 0 && ROWS <= kThreads, "whole rows of lanes");
  constexpr int kLanesK = kKFast ? KP : KMAX;  // the k extent the lanes cover
  constexpr int kPer = (ROWS * kLanesK + kThreads - 1) / kThreads;
  constexpr int dr = kKFast ? kThreads / KP : 0, dk = kKFast ? 0 : kThreads / ROWS;
  const int t = int(threadIdx.x);
  const int r0 = kKFast ? t / KP : t % ROWS, k0 = kKFast ? t % KP : t / ROWS;
  const TA* p = src + int64_t(r0) * s_row + int64_t(k0) * s_k;
  const int64_t step = kKFast ? int64_t(dr) * s_row : int64_t(dk) * s_k;
  uint16_t x[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j, p += step) {
    x[j] = 0;
    if (kKFast || j * dk < KP)  // compile-time: k = k0 + j dk >= KP >= K loads nothing
      x[j] = arch::ld_global_nc_b16_or_zero(p, kKFast ? (k0 < K && r0 + j * dr < rows) : (r0 < rows && k0 + j * dk < K));
  }
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
    for (int j = 0; j < kPer; ++j)
      if (ROWS * kLanesK % kThreads == 0 || (kKFast ? r0 + j * dr : r0) < ROWS) sT[(r0 + j * dr) * LD + k0 + j * dk] = x[j];
  }
  if constexpr (kKFast && KP < KMAX) {  // k in [KP, KMAX): zeros, a row a thread (8-byte aligned: LD is 24)
    static_assert((KP * 2) % 8 == 0 && ((KMAX - KP) * 2) % 8 == 0 && (LD * 2) % 8 == 0, "8-byte zero stores");
    if (t < ROWS) {
#pragma unroll
      for (int k = KP; k < KMAX; k += 4) *reinterpret_cast<uint2*>(&sT[t * LD + k]) = make_uint2(0, 0);
    }
  }
}

// 8 values -> one 16-byte vector of a 16-bit D (or two of an f32 D) at p (aligned): an explicit
// vector store (left to the compiler, the 16-bit D's came out as four 4-byte STG.E).
template <class TD>
__device__ __forceinline__ void store8(TD* p, const float (&v)[8]) {
  if constexpr (std::is_same_v<TD, float>) {
    arch::st_global_v4(p, make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3])));
    arch::st_global_v4(p + 4, make_uint4(__float_as_uint(v[4]), __float_as_uint(v[5]), __float_as_uint(v[6]), __float_as_uint(v[7])));
  } else {
    arch::st_global_v4(p, make_uint4(common::pack_pair<TD>(v[0], v[1]), common::pack_pair<TD>(v[2], v[3]),
                                     common::pack_pair<TD>(v[4], v[5]), common::pack_pair<TD>(v[6], v[7])));
  }
}

// The fp32 tile (rows x cols of sD, pitch kLdD) to global rows that are not 16-byte vectors. Warp w
// takes rows w, w + 8, ...; a 16-bit D goes out in 4-byte words (after one element where the row
// starts off 4 bytes), a warp's store 128 contiguous bytes; an f32 D element by element, likewise.
// Both loops are unrolled to their compile-time bounds, each step predicated: a lane's loads and
// stores of all its rows are independent (as a run-time loop, each trip waited for its LDS -- a
// tiny grid's words path took ~1 us more than its 16-byte path on the H100).
// (Each lane's 8 columns as 8 element stores left a warp's 2-byte stores 16 bytes apart: 3.5x
// cuBLASLt's time on 5801x12404x6, ldd = 12404 (H100). Tried and rejected, both slower: the
// tile's rows shifted in smem to D's 16-byte vectors -- the fragment stores' bank conflicts, 1.3x on
// ldd 8194 -- and 16-byte vectors realigned across lanes by shfl.up -- 30 M instructions against
// 24 M at 4096x8194x2, 1.2-1.3x; docs/shortk.md.)
template <class Cfg>
__device__ __forceinline__ void store_rows_words(const float* sD, typename Cfg::TD* g0, int64_t ldd, int rows,
                                                 int cols) {
  using TD = typename Cfg::TD;
  constexpr int kRowsPerWarp = Cfg::BM / Cfg::kWarps;
  constexpr int kPerLane = (sizeof(TD) == 2 ? Cfg::BN / 2 : Cfg::BN) / 32;  // words (or f32 elements) a lane a row
  static_assert(Cfg::BM % Cfg::kWarps == 0 && (sizeof(TD) == 2 ? Cfg::BN / 2 : Cfg::BN) % 32 == 0, "whole rows a warp");
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; ++i) {
    const int r = warp + i * Cfg::kWarps;
    if (r >= rows) continue;
    const float* s = sD + r * Cfg::kLdD;
    TD* g = g0 + r * ldd;
    if constexpr (sizeof(TD) == 2) {
      const int lead = reinterpret_cast<uintptr_t>(g) % 4 ? 1 : 0;
      const int pairs = (cols - lead) / 2;
      uint32_t* g32 = reinterpret_cast<uint32_t*>(g + lead);
#pragma unroll
      for (int w = 0; w < kPerLane; ++w) {
        const int p = lane + 32 * w;
        if (p < pairs) g32[p] = common::pack_pair<TD>(s[lead + 2 * p], s[lead + 2 * p + 1]);
      }
      if (lead && lane == 0) g[0] = TD(s[0]);
      if ((cols - lead) % 2 && lane == 31) g[cols - 1] = TD(s[cols - 1]);
    } else {
#pragma unroll
      for (int w = 0; w < kPerLane; ++w) {
        const int c = lane + 32 * w;
        if (c < cols) g[c] = s[c];
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
    // KP: the least of 4, 8, KMAX that holds K (fill_tile); the layouts' four paths each.
    auto fill = [&](auto kp) {
      constexpr int KP = decltype(kp)::value;
      if (args.a_sk == 1)
        fill_tile<true, KP, BM, KMAX, kLdK, kThreads>(sA, a, args.a_sm, args.a_sk, rows, K);
      else
        fill_tile<false, KP, BM, KMAX, kLdK, kThreads>(sA, a, args.a_sm, args.a_sk, rows, K);
      if (args.b_sk == 1)
        fill_tile<true, KP, BN, KMAX, kLdK, kThreads>(sB, b, args.b_sn, args.b_sk, cols, K);
      else
        fill_tile<false, KP, BN, KMAX, kLdK, kThreads>(sB, b, args.b_sn, args.b_sk, cols, K);
    };
    if (K <= 4)
      fill(std::integral_constant<int, 4>{});
    else if (K <= 8)
      fill(std::integral_constant<int, 8>{});
    else
      fill(std::integral_constant<int, KMAX>{});
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
    __syncthreads();  // every warp is done reading sA, sB: sD takes their place
    {
      const int g = lane >> 2, t2 = 2 * (lane & 3);
#pragma unroll
      for (int i = 0; i < Cfg::kMBlocks; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kNBlocks; ++j) {
          float* d0 = &sD[(wm + 16 * i + g) * kLdD + wn + 8 * j + t2];
          *reinterpret_cast<float2*>(d0) = make_float2(acc[i][j][0], acc[i][j][1]);
          *reinterpret_cast<float2*>(d0 + 8 * kLdD) = make_float2(acc[i][j][2], acc[i][j][3]);
        }
    }
    __syncthreads();
    if (!plain) {  // alpha, beta * C, bias, activation: once an element, consecutive threads along a row
#pragma unroll 1
      for (int e = tid; e < BM * BN; e += kThreads) {
        const int r = e / BN, c = e % BN;
        if (r >= rows || c >= cols) continue;
        const int64_t gm = m0 + r, gn = n0 + c;
        float& v = sD[r * kLdD + c];
        v = common::activate(common::epilogue_linear<TD>(v, ep, common::c_element<TD>(ep, bt, gm, gn), gm, gn), ep.act);
      }
      __syncthreads();
    }
    TD* d = args.d + bt * args.stride_d;
    if (reinterpret_cast<uintptr_t>(d) % 16 == 0 && args.ldd % kVecD == 0) {
      // 8 columns a thread, a warp's 32 threads along a row: 16-byte vectors (two for an f32 D).
      // Unrolled to its compile-time count, like the words path: the chunks are independent.
      static_assert(BM * (BN / 8) % kThreads == 0, "whole 8-column chunks a thread");
#pragma unroll
      for (int i = 0; i < BM * (BN / 8) / kThreads; ++i) {
        const int q = tid + i * kThreads, r = q / (BN / 8), c = (q % (BN / 8)) * 8;
        if (r >= rows || c >= cols) continue;
        const float4 lo = *reinterpret_cast<const float4*>(&sD[r * kLdD + c]);
        const float4 hi = *reinterpret_cast<const float4*>(&sD[r * kLdD + c + 4]);
        const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        TD* row = d + (m0 + r) * args.ldd + n0 + c;
        if (c + 8 <= cols) {
          store8(row, v);
        } else {
#pragma unroll
          for (int j = 0; j < 8; ++j)
            if (c + j < cols) row[j] = TD(v[j]);
        }
      }
    } else {  // rows off 16 bytes: each warp writes whole rows, lanes on consecutive words
      store_rows_words<Cfg>(sD, d + m0 * args.ldd + n0, args.ldd, rows, cols);
    }
  }
}

}  // namespace pipegemm::kernels::shortk
