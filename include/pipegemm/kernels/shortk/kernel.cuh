// shortk: GEMMs whose K is a handful of elements (K <= KMAX, e.g. 1-16) -- the output is the work.
//
//   D (M,N) = A (M,K) * B (N,K)^T, any layout of A and B, any alignment, a strided batch and the
//   full epilogue (alpha, beta * C, bias, activation), fp32 FFMA on the converted inputs.
//
// With K = 2..16 every output costs 2..32 multiply-adds and 2 or 4 bytes of D: the time is D's
// bytes over the DRAM write bandwidth, not math. A tensor-core tile pads K to 16 or 64 and k0's
// element stores move D at ~0.12 of the streaming rate; cuBLASLt reached 0.4-0.55 of the copy rate
// on such shapes (bench/results/2026-12-06_h100_s31_call5_*: 5801x12404x6, 2742x5363x2).
//
// The rung is k1's, with one k_tile: load -> sync -> compute -> store. The CTA's A (BM x K) and B
// (BN x K) tiles, element loads through any strides, land in shared memory as fp32, k-major
// (sA[k][m], sB[k][n]), zero past M, N and K; one __syncthreads; then each thread multiplies TM
// rows by 8 consecutive columns from there (2 + TM/4 LDS.128 per k for TM x 8 FFMA -- every lane
// of a row group reads the same A words: a broadcast) and stores its 8 columns of each row as one
// 16-byte vector (two for an f32 D): a warp writes 512 contiguous bytes of a row. Rows of D off
// 16 bytes (most random N: an ldd not a multiple of 8) are staged in shared memory and written by
// whole warps, lanes on consecutive 4-byte words; the N edge of aligned rows stores element by element.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/mechanism.hpp"

namespace pipegemm::kernels::shortk {

// TA, TD: element types; BM x BN outputs per CTA; KMAX: the largest K; Name_: the registered
// variant's tag (its name in the mangled symbol).
template <class TA_, class TD_, int BM_, int BN_, int KMAX_, class Name_>
struct ShortKConfig {
  using TA = TA_;
  using TD = TD_;
  using Name = Name_;
  static constexpr int BM = BM_, BN = BN_, KMAX = KMAX_;
  static constexpr int kNumThreads = 256;
  static constexpr int kCols = 8;                        // a thread's consecutive columns
  static constexpr int kThreadsN = BN / kCols;           // threads across a row of the tile
  static constexpr int kThreadsM = kNumThreads / kThreadsN;
  static constexpr int TM = BM / kThreadsM;              // a thread's rows (contiguous)
  // Shared rows padded by 4 floats: still 16-byte aligned, and the k-fastest fill of a K-major
  // operand (consecutive k of one row in consecutive lanes) spreads over banks 4 apart.
  static constexpr int kLdA = BM + 4, kLdB = BN + 4;
  static constexpr int kOperandBytes = KMAX * (kLdA + kLdB) * 4;
  // D's tile staged for rows off 16 bytes (the store phase reuses the operands' smem): rows padded by
  // 8 elements, 16-byte aligned.
  static constexpr int kLdD = BN + 8;
  static constexpr int kStageBytes = BM * kLdD * int(sizeof(TD));
  static constexpr int kSmemBytes = kOperandBytes > kStageBytes ? kOperandBytes : kStageBytes;  // static
  static_assert(BN % kCols == 0 && kNumThreads % kThreadsN == 0, "whole 8-column vectors per row");
  static_assert(BM % kThreadsM == 0 && (TM == 1 || TM == 2 || TM % 4 == 0), "TM rows: 1, 2 or a multiple of 4");
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory");
  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::ldg;  // element LDG, then STS as fp32
    m.mma = MmaKind::ffma;
    m.pipeline = PipelineKind::single;  // one k_tile: nothing to overlap
    m.order = TileOrder::rows_by_cols;
    m.epilogue = EpilogueKind::direct;  // 16-byte row vectors straight from registers
    m.load_bytes = int(sizeof(TA));
    return m;
  }();
};

namespace {
// What an element outside the problem loads (any element type: 0 in every one of them).
__device__ const uint32_t kZeroElement[1] = {0};
}  // namespace

// The operand tile (ROWS x KMAX) -> shared (sT[k * LD + r], fp32), zero past the problem's
// rows and K. Element loads through any strides; lanes walk the unit-stride dimension (k for a
// K-major operand, rows for an M/N-major one) so a warp's loads coalesce either way. Every load is
// issued before the first is stored: an element outside the problem loads a zero from kZeroElement
// instead -- a load under a branch made the compiler wait for each before issuing the next (one L2
// round trip an element), and a select after it held a predicate per load until the stores. Each thread's elements are its first plus
// a fixed step (no per-element 64-bit index math: with it the kernel held 105 registers).
template <int ROWS, int KMAX, int LD, int kThreads, class TA>
__device__ __forceinline__ void fill_tile(float* sT, const TA* __restrict__ src, int64_t s_row, int64_t s_k, int rows,
                                          int K) {
  constexpr int kPer = ROWS * KMAX / kThreads;
  static_assert(kThreads % KMAX == 0 && kThreads % ROWS == 0, "whole passes over the tile");
  // A thread's first element (r0, k0) and its step (dr, dk) a pass: along the rows for a K-major
  // operand (k fixed), along K for an M/N-major one (the row fixed).
  const bool k_fast = s_k == 1;
  const int t = int(threadIdx.x);
  const int r0 = k_fast ? t / KMAX : t % ROWS, k0 = k_fast ? t % KMAX : t / ROWS;
  const int dr = k_fast ? kThreads / KMAX : 0, dk = k_fast ? 0 : kThreads / ROWS;
  const TA* p0 = src + int64_t(r0) * s_row + int64_t(k0) * s_k;
  const int64_t step = int64_t(dr) * s_row + int64_t(dk) * s_k;
  const TA* zero = reinterpret_cast<const TA*>(kZeroElement);
  TA x[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) x[j] = *((r0 + j * dr < rows && k0 + j * dk < K) ? p0 + j * step : zero);
#pragma unroll
  for (int j = 0; j < kPer; ++j) sT[(k0 + j * dk) * LD + r0 + j * dr] = float(x[j]);
}

// 8 values -> one 16-byte vector of a 16-bit D (or two of an f32 D) at p (aligned).
template <class TD>
__device__ __forceinline__ void store8(TD* p, const float (&v)[8]) {
  if constexpr (std::is_same_v<TD, float>) {
    reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
  } else {
    *reinterpret_cast<uint4*>(p) = make_uint4(common::pack_pair<TD>(v[0], v[1]), common::pack_pair<TD>(v[2], v[3]),
                                              common::pack_pair<TD>(v[4], v[5]), common::pack_pair<TD>(v[6], v[7]));
  }
}

// CTAs an SM: 3 fit 80 registers on sm_90a; sm_80's code spilled a word there, so it keeps 2.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kMinBlocks = 2;
#else
constexpr int kMinBlocks = 3;
#endif

// D's staged tile (rows x cols of sD, pitch kLdD) to global rows that are not 16-byte vectors. Warp w
// takes rows w, w + 8, ...; a 16-bit D goes out in 4-byte words (after one element where the row
// starts off 4 bytes), a warp's store 128 contiguous bytes; an f32 D element by element, likewise.
// (Stored from registers, each lane's 8 columns as 8 element stores left a warp's 2-byte stores 16
// bytes apart: 3.5x cuBLASLt's time on 5801x12404x6, ldd = 12404.)
template <class Cfg>
__device__ __forceinline__ void store_rows_staged(const typename Cfg::TD* sD, typename Cfg::TD* g0, int64_t ldd,
                                                  int rows, int cols) {
  using TD = typename Cfg::TD;
  const int lane = int(threadIdx.x) % 32;
  for (int r = int(threadIdx.x) / 32; r < rows; r += Cfg::kNumThreads / 32) {
    const TD* s = sD + r * Cfg::kLdD;
    TD* g = g0 + r * ldd;
    if constexpr (sizeof(TD) == 2) {
      const uint16_t* s16 = reinterpret_cast<const uint16_t*>(s);
      const int lead = reinterpret_cast<uintptr_t>(g) % 4 ? 1 : 0;
      if (lead && lane == 0) g[0] = s[0];
      const int pairs = (cols - lead) / 2;
      uint32_t* g32 = reinterpret_cast<uint32_t*>(g + lead);
      for (int p = lane; p < pairs; p += 32)
        g32[p] = uint32_t(s16[lead + 2 * p]) | (uint32_t(s16[lead + 2 * p + 1]) << 16);
      if ((cols - lead) % 2 && lane == 0) g[cols - 1] = s[cols - 1];
    } else {
      for (int c = lane; c < cols; c += 32) g[c] = s[c];
    }
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, kMinBlocks)
    shortk_kernel(const common::FullArgs<typename Cfg::TA, typename Cfg::TD> args) {
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, KMAX = Cfg::KMAX, TM = Cfg::TM;
  __shared__ __align__(16) unsigned char smem[Cfg::kSmemBytes];
  float* sA = reinterpret_cast<float*>(smem);
  float* sB = sA + KMAX * Cfg::kLdA;
  TD* sD = reinterpret_cast<TD*>(smem);  // the store phase's, once sA and sB are read
  const int tid = int(threadIdx.x);
  const int tn = tid % Cfg::kThreadsN, tm = tid / Cfg::kThreadsN;
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
    if (bt != int(blockIdx.z)) __syncthreads();  // the previous product's reads of sA, sB are done
    fill_tile<BM, KMAX, Cfg::kLdA, Cfg::kNumThreads>(sA, args.a + bt * args.stride_a + m0 * args.a_sm, args.a_sm,
                                                     args.a_sk, rows, K);
    fill_tile<BN, KMAX, Cfg::kLdB, Cfg::kNumThreads>(sB, args.b + bt * args.stride_b + n0 * args.b_sn, args.b_sn,
                                                     args.b_sk, cols, K);
    __syncthreads();

    float acc[TM][8];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    // A loop over K itself (not KMAX): the zeros past K are never multiplied.
#pragma unroll 1
    for (int k = 0; k < K; ++k) {
      const float4 b0 = *reinterpret_cast<const float4*>(&sB[k * Cfg::kLdB + tn * 8]);
      const float4 b1 = *reinterpret_cast<const float4*>(&sB[k * Cfg::kLdB + tn * 8 + 4]);
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
      float av[TM];
      if constexpr (TM % 4 == 0) {
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 a = *reinterpret_cast<const float4*>(&sA[k * Cfg::kLdA + tm * TM + i]);
          av[i] = a.x, av[i + 1] = a.y, av[i + 2] = a.z, av[i + 3] = a.w;
        }
      } else {
#pragma unroll
        for (int i = 0; i < TM; ++i) av[i] = sA[k * Cfg::kLdA + tm * TM + i];
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }

    // ===== EPILOGUE: alpha, beta * C, bias, activation in fp32, then 16-byte row vectors ======
    // The plain GEMM stores its accumulators as they are; the general epilogue runs one element at a
    // time (a loop, not unrolled: one inlined copy of GELU's erf, not 32 -- unrolled, the kernel held
    // 109 registers against 2 CTAs an SM).
    TD* d = args.d + bt * args.stride_d;
    const bool vec_ok = reinterpret_cast<uintptr_t>(d) % 16 == 0 && args.ldd % kVecD == 0;
    const int c0 = tn * 8;
    if (!vec_ok) __syncthreads();  // uniform: every thread is done reading sA, sB before sD takes their place
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int r = tm * TM + i;
      if (r >= rows || c0 >= cols) continue;
      const int64_t gm = m0 + r;
      float v[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) v[j] = acc[i][j];
      if (!plain) {
#pragma unroll 1
        for (int j = 0; j < 8; ++j) {
          if (c0 + j >= cols) break;
          const int64_t gn = n0 + c0 + j;
          const void* c_elem = common::c_element<TD>(ep, bt, gm, gn);
          v[j] = common::activate(common::epilogue_linear<TD>(v[j], ep, c_elem, gm, gn), ep.act);
        }
      }
      if (!vec_ok) {
        store8(sD + r * Cfg::kLdD + c0, v);
        continue;
      }
      TD* row = d + gm * args.ldd + n0 + c0;
      if (c0 + 8 <= cols) {
        store8(row, v);
      } else {
#pragma unroll
        for (int j = 0; j < 8; ++j)
          if (c0 + j < cols) row[j] = TD(v[j]);
      }
    }
    if (!vec_ok) {  // rows off 16 bytes: each warp writes whole staged rows, lanes on consecutive words
      __syncthreads();
      store_rows_staged<Cfg>(sD, d + m0 * args.ldd + n0, args.ldd, rows, cols);
    }
  }
}

}  // namespace pipegemm::kernels::shortk
