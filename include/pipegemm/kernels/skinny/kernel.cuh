// skinny: thin GEMMs (decode, M or N <= 32) -- one operand streamed from DRAM, no smem ring.
//
//   D (M,N) = A (M,K) * B (N,K)^T with min(M, N) <= kMaxX, A and B K-major, fp32 accumulation,
//   the full epilogue (alpha, beta * C, bias, activation) and a strided batch.
//
// With M = 1..32 a 128x256 tile is 97-99% padding and every byte of B is read once: the time is
// B's bytes over the DRAM bandwidth (cuBLAS reaches 57% of the copy rate on 1x4096x4096). So the
// thin operand, X (<= 32 rows, read by every CTA, an L2 hit), always rides mma.sync's 16-row
// side (padded to 16), and the large one, W, its 8-wide side -- for small N that is the swap
// D^T = B A^T -- streamed straight into registers with 16-byte loads. No shared memory holds
// operands.
//
// K order inside a 32-wide step is a free choice (both operands use the same one): lane (g, t)
// loads elements 8t .. 8t+7 of a row -- one 16-byte vector -- and feeds words 0-1 to the step's
// first m16n8k16 and words 2-3 to its second. On the 8-wide side a B fragment is one row's two
// words, so W's vector IS two fragments (registers used where they land: no MOV touches a load
// in flight); X's A fragments pair rows g and g + 8 (gathered once per step, for every W block).
// Four lanes read a row's 64 contiguous bytes.
//
// Work: CTA (x = kRows rows of W, y = K split, z = product); its kWarps warps take the CTA's
// k_tiles (kUnroll steps, kWarpK elements) in turn, so a round of the CTA reads kCtaK contiguous
// elements of each row. Each warp prefetches its next k_tile into registers before the mma.sync
// of this one (a register double buffer: two named buffers taking turns). The warps' partial
// sums meet in shared memory in warp order; the K splits' in an fp32 workspace, summed in split
// order by the last CTA to arrive -- the same order every run, so results are bitwise repeatable.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cute/arch/mma_sm80.hpp>
#include <type_traits>

#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/arch/ld_global.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/skinny/partials.hpp"
#include "pipegemm/mechanism.hpp"

namespace pipegemm::kernels::skinny {

// TIn: __half or __nv_bfloat16; TOut: TIn or float. MAX_X: the thin side (8, 16, 32: m16 tiles,
// padded); ROWS: W rows per CTA (n8 blocks); WARPS: warps splitting the CTA's K; UNROLL: 32-wide
// steps per k_tile; L2: the streamed loads' L2 prefetch span (0 or 256 bytes); VEC: elements per
// global load -- 8 (16-byte rows and pointers) or 1 (any alignment). Name: a tag type whose name
// is the variant's, so the mangled symbol names it.
template <class TIn, class TOut, int MAX_X, int ROWS, int WARPS, int UNROLL, int L2, int VEC, class Name>
struct SkinnyConfig {
  using TA = TIn;
  using TD = TOut;
  static constexpr int kMaxX = MAX_X, kRows = ROWS, kWarps = WARPS, kUnroll = UNROLL, kVec = VEC;
  static constexpr int kL2Prefetch = L2;
  static constexpr int kXT = (MAX_X + 15) / 16;  // m16 tiles of X (the thin side, padded)
  static constexpr int kWB = ROWS / 8;            // n8 blocks of W
  static constexpr int kStepK = 32;      // two m16n8k16 per 16-byte vector
  static constexpr int kWarpK = kStepK * UNROLL;  // a warp's k_tile
  static constexpr int kCtaK = kWarpK * WARPS;    // a CTA round (the registry's BK)
  static constexpr int kNumThreads = 32 * WARPS;
  static constexpr int kElems = ROWS * MAX_X;     // a CTA's outputs
  static constexpr int kMaxSplit = 64;            // CTAs sharing a tile's K
  // CTAs per SM the registers must allow: 4 x 4 warps keep enough of W in flight (the 8-row form
  // fits in 128 registers without spilling, its element form in 168; the wider X forms take
  // what they need).
  static constexpr int kMinBlocks = MAX_X <= 8 ? (VEC == 8 ? 4 : 3) : 2;
  using Mma = std::conditional_t<std::is_same_v<TIn, __half>, cute::SM80_16x8x16_F32F16F16F32_TN,
                                 cute::SM80_16x8x16_F32BF16BF16F32_TN>;

  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::ldg;
    m.load_bytes = VEC * int(sizeof(TIn));
    m.mma = MmaKind::mma_sync;
    m.pipeline = PipelineKind::register_prefetch;
    m.order = TileOrder::rows_by_cols;
    m.epilogue = EpilogueKind::direct;
    m.warps_m = WARPS;
    m.warps_n = 1;
    m.swap_ab = true;
    m.split_k = kMaxSplit;
    return m;
  }();

  static_assert(std::is_same_v<TIn, __half> || std::is_same_v<TIn, __nv_bfloat16>, "16-bit inputs (mma.sync k16)");
  static_assert(std::is_same_v<TOut, TIn> || std::is_same_v<TOut, float>, "D in the input type or f32");
  static_assert(MAX_X == 8 || MAX_X == 16 || MAX_X == 32, "the thin side: 8, 16 or 32 rows (m16 tiles, padded)");
  static_assert(ROWS % 8 == 0 && ROWS <= 64, "W rows: n8 blocks");
  static_assert(VEC == 8 || VEC == 1, "16-byte vectors or element loads");
  static_assert(WARPS * kElems * 4 <= 48 * 1024, "the warps' partial sums fit static shared memory");
};

// The problem as the kernel sees it: W (n_w, k) streamed, X (n_x <= kMaxX, k), D element
// (x row, w row) at D(i, j) = x_is_a ? (x, w) : (w, x).
template <class TA, class TD>
struct SkinnyArgs {
  const TA* w;
  const TA* x;
  TD* d;
  int n_w, n_x, k, batch;
  int64_t ldw, ldx, ldd;
  int64_t stride_w, stride_x, stride_d;  // per product (0: one matrix for all)
  int x_is_a;                            // 1: X = A (small M), D(x, w); 0: X = B (small N), D(w, x)
  common::EpilogueArgs epi;
  float* partials;  // K split (gridDim.y > 1): (tiles, splits, kElems) fp32
  int* counters;    // one per tile, zero on entry, left zero
  int k_tiles_per_split;
};

// 8 elements k .. k+7 of a row as 4 words (pairs). kTail (the k_tile that holds K's end): past
// K, zeros -- in both operands, so a product past the edge is 0 * 0, never 0 * whatever lies
// beyond the row.
template <class Cfg, bool kStream, bool kTail>
__device__ __forceinline__ uint4 load8(const typename Cfg::TA* row, int k, int K) {
  if constexpr (Cfg::kVec == 8) {
    if (!kTail || k + 8 <= K) return kStream ? arch::ld_global_nc_stream_v4<Cfg::kL2Prefetch>(row + k) : arch::ld_global_nc_v4(row + k);
    // Wholly past K: zeros, nothing read. Only the vector straddling K takes the element loads
    // below; at a tiny K (8: one vector a row) every other lane of the tail k_tile did 8 of them.
    if (k >= K) return make_uint4(0u, 0u, 0u, 0u);
  }
  const uint16_t* r = reinterpret_cast<const uint16_t*>(row);
  uint32_t h[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if constexpr (kTail) {
      // Past K the row's last element is read (always a valid address) and replaced by 0: no
      // predicate or branch on the load itself. `k + i < K ? load : 0` became, in the 32-row form,
      // a branch and a reconvergence around each of the tail's 64 loads (SASS: BSSY BRA LDG BSYNC).
      const uint32_t x = __ldg(r + min(k + i, K - 1));
      h[i] = k + i < K ? x : 0u;
    } else {
      h[i] = __ldg(r + k + i);
    }
  }
  return make_uint4(h[0] | h[1] << 16, h[2] | h[3] << 16, h[4] | h[5] << 16, h[6] | h[7] << 16);
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

template <class TD>
__device__ __forceinline__ TD to_d(float v) {
  if constexpr (std::is_same_v<TD, __half>) return __float2half_rn(v);
  else if constexpr (std::is_same_v<TD, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return v;
}

// One warp's k_tile in registers: (UNROLL steps) x (kWB n8 blocks) of W, x (kXT m16 tiles x rows g, g+8) of X.
template <class Cfg>
struct SkinnyFragments {
  uint4 w[Cfg::kUnroll][Cfg::kWB];
  uint4 x[Cfg::kUnroll][Cfg::kXT][Cfg::kMaxX > 8 ? 2 : 1];
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, Cfg::kMinBlocks)
    skinny_kernel(const SkinnyArgs<typename Cfg::TA, typename Cfg::TD> args) {
  using TA = typename Cfg::TA;
  using TD = typename Cfg::TD;
  constexpr int XT = Cfg::kXT, WB = Cfg::kWB, U = Cfg::kUnroll, W = Cfg::kWarps;
  // X rows g + 8 of an m16 tile: padding when the thin side is at most 8 rows -- not loaded, the
  // A fragment repeats rows g there (those sums are dropped).
  constexpr int kXHalves = Cfg::kMaxX > 8 ? 2 : 1;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int K = args.k, bt = blockIdx.z;
  const int row0 = blockIdx.x * Cfg::kRows;

  // This lane's rows: W rows row0 + 8 wb + g, X rows 16 xt + g (+ 8). Rows past the edge read the
  // last row again (a valid address); their sums are never stored.
  const TA* wrow[WB];
  const TA* xrow[XT][kXHalves];
  const TA* w = args.w + int64_t(bt) * args.stride_w;
  const TA* x = args.x + int64_t(bt) * args.stride_x;
#pragma unroll
  for (int wb = 0; wb < WB; ++wb) wrow[wb] = w + int64_t(min(row0 + 8 * wb + g, args.n_w - 1)) * args.ldw;
#pragma unroll
  for (int xt = 0; xt < XT; ++xt)
#pragma unroll
    for (int h = 0; h < kXHalves; ++h) xrow[xt][h] = x + int64_t(min(16 * xt + 8 * h + g, args.n_x - 1)) * args.ldx;

  // This CTA's k_tiles [kt_begin, kt_end) (its K split); warp w takes kt_begin + w, + W, ...
  const int k_tiles = (K + Cfg::kWarpK - 1) / Cfg::kWarpK;
  const int kt_begin = int(blockIdx.y) * args.k_tiles_per_split;
  const int kt_end = min(k_tiles, kt_begin + args.k_tiles_per_split);

  float acc[XT][WB][4];  // (m16 tile of X, n8 block of W, fragment)
#pragma unroll
  for (int xt = 0; xt < XT; ++xt)
#pragma unroll
    for (int wb = 0; wb < WB; ++wb)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[xt][wb][i] = 0.f;

  auto load_k_tile = [&](SkinnyFragments<Cfg>& f, int kt, auto tail) {
    constexpr bool kTail = decltype(tail)::value;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = kt * Cfg::kWarpK + u * Cfg::kStepK + 8 * t;
#pragma unroll
      for (int wb = 0; wb < WB; ++wb) f.w[u][wb] = load8<Cfg, true, kTail>(wrow[wb], k, K);
#pragma unroll
      for (int xt = 0; xt < XT; ++xt)
#pragma unroll
        for (int h = 0; h < kXHalves; ++h) f.x[u][xt][h] = load8<Cfg, false, kTail>(xrow[xt][h], k, K);
    }
  };
  // A step's vector word j = pair (2j, 2j + 1) of the lane's 8 elements: m16n8k16 number s takes
  // words 2s and 2s + 1 as its k pairs (2t, 2t+1) and (2t+8, 2t+9) -- B = W's row g, A = X's rows
  // g (a0, a2) and g + 8 (a1, a3).
  auto mma = [&](const SkinnyFragments<Cfg>& f) {
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int s = 0; s < 2; ++s)
#pragma unroll
        for (int xt = 0; xt < XT; ++xt) {
          const uint32_t a0 = word(f.x[u][xt][0], 2 * s), a1 = word(f.x[u][xt][kXHalves - 1], 2 * s);
          const uint32_t a2 = word(f.x[u][xt][0], 2 * s + 1), a3 = word(f.x[u][xt][kXHalves - 1], 2 * s + 1);
#pragma unroll
          for (int wb = 0; wb < WB; ++wb) {
            float* c = acc[xt][wb];
            Cfg::Mma::fma(c[0], c[1], c[2], c[3], a0, a1, a2, a3, word(f.w[u][wb], 2 * s), word(f.w[u][wb], 2 * s + 1),
                          c[0], c[1], c[2], c[3]);
          }
        }
  };

  // Programmatic dependent launch (a no-op unless launched with it): nothing above touched global
  // memory; the next grid may launch once every CTA of this one has started.
  arch::griddep_wait();
  arch::griddep_launch_dependents();

  // ===== PROLOGUE ============================================================================
  // The warp's first k_tile in flight.
  // ===== MAINLOOP ============================================================================
  // k_tile kt + W's loads are issued before kt's mma.sync, into the other of two named buffers
  // (never `cur = next`: that copy reads the fresh registers, and its MOVs between the HMMAs
  // wait for the loads just issued -- the SASS checker saw it, session 11). DRAM latency hides
  // under this warp's MMAs and under the SM's other warps; the bytes in flight set the rate.
  // Only whole k_tiles run here: no element predicate (nor branch) inside the loop.
  // ===== DRAIN ===============================================================================
  // The last whole k_tile's MMAs, then K's partial k_tile (if any) by the warp whose turn it is.
  const int full_end = min(kt_end, K / Cfg::kWarpK);  // k_tiles wholly inside K
  int kt = kt_begin + warp;
  if (kt < full_end) {
    SkinnyFragments<Cfg> f0, f1;
    load_k_tile(f0, kt, std::false_type{});
    while (true) {
      const bool more = kt + W < full_end;
      if (more) load_k_tile(f1, kt + W, std::false_type{});
      mma(f0);
      if (!more) break;
      kt += W;
      const bool more2 = kt + W < full_end;
      if (more2) load_k_tile(f0, kt + W, std::false_type{});
      mma(f1);
      if (!more2) break;
      kt += W;
    }
  }
  const int tail = K / Cfg::kWarpK;  // the partial k_tile's index when K % kWarpK
  if (K % Cfg::kWarpK && tail >= kt_begin && tail < kt_end && (tail - kt_begin) % W == warp) {
    SkinnyFragments<Cfg> f;
    load_k_tile(f, tail, std::true_type{});
    mma(f);
  }

  // ===== EPILOGUE ============================================================================
  // Warps' sums in warp order (smem), then the K splits' in split order (workspace), then alpha,
  // beta * C, bias, activation per element, stored so that a warp writes D's contiguous dimension.
  // The X rows of the padding (past kMaxX) are dropped. Each warp's block is laid out by
  // partial_index (partials.hpp: no bank conflicts on the reads in store order).
  constexpr int R = Cfg::kRows, X = Cfg::kMaxX;
  __shared__ float red[W][R * X];
#pragma unroll
  for (int xt = 0; xt < XT; ++xt)
#pragma unroll
    for (int wb = 0; wb < WB; ++wb)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const PartialCoord c = fragment_coord(xt, wb, i, g, t);
        if (c.xr < X) red[warp][partial_index<X>(c.r, c.xr)] = acc[xt][wb][i];
      }
  __syncthreads();

  constexpr int kPer = (Cfg::kElems + Cfg::kNumThreads - 1) / Cfg::kNumThreads;
  float v[kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int e = tid + i * Cfg::kNumThreads;
    v[i] = 0.f;
    if (e < Cfg::kElems) {
      const PartialCoord c = store_coord<R, X>(e, args.x_is_a);
      const int at = partial_index<X>(c.r, c.xr);
#pragma unroll
      for (int ww = 0; ww < W; ++ww) v[i] += red[ww][at];
    }
  }

  if (gridDim.y > 1) {  // the CTA's K split -> the workspace; the last to arrive sums them
    const int64_t tile = int64_t(blockIdx.z) * gridDim.x + blockIdx.x;
    const int splits = int(gridDim.y);
    float* part = args.partials + tile * splits * Cfg::kElems;
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int e = tid + i * Cfg::kNumThreads;
      if (e < Cfg::kElems) __stcg(part + int64_t(blockIdx.y) * Cfg::kElems + e, v[i]);
    }
    __threadfence();
    __syncthreads();
    __shared__ int last;
    if (tid == 0) last = atomicAdd(args.counters + tile, 1) == splits - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < kPer; ++i) v[i] = 0.f;
    for (int s = 0; s < splits; ++s)
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int e = tid + i * Cfg::kNumThreads;
        if (e < Cfg::kElems) v[i] += __ldcg(part + int64_t(s) * Cfg::kElems + e);
      }
    if (tid == 0) args.counters[tile] = 0;  // ready for the next launch
  }

  const common::EpilogueArgs& ep = args.epi;
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const int e = tid + i * Cfg::kNumThreads;
    if (e >= Cfg::kElems) continue;
    const PartialCoord c = store_coord<R, X>(e, args.x_is_a);
    const int wr = row0 + c.r, xr = c.xr;
    if (wr >= args.n_w || xr >= args.n_x) continue;
    const int64_t di = args.x_is_a ? xr : wr, dj = args.x_is_a ? wr : xr;
    const void* c_elem = nullptr;
    if (ep.c) {
      const int64_t off = int64_t(bt) * ep.stride_c + di * ep.ldc + dj;
      c_elem = ep.c_type == DType::f32 ? static_cast<const void*>(static_cast<const float*>(ep.c) + off)
                                       : static_cast<const void*>(static_cast<const TD*>(ep.c) + off);
    }
    const float y = common::activate(common::epilogue_linear<TD>(v[i], ep, c_elem, di, dj), ep.act);
    args.d[int64_t(bt) * args.stride_d + di * args.ldd + dj] = to_d<TD>(y);
  }
}

}  // namespace pipegemm::kernels::skinny
