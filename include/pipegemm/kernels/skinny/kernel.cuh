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
// first m16n8k16 and words 2-3 to its second. Rows off 16 bytes (odd K or ld, 2-byte pointers)
// load the same 8 elements as five aligned 4-byte words, funnel-shifted into place when the MMAs
// need them -- not when the loads land, so the loads stay in flight under the previous k_tile's
// MMAs. On the 8-wide side a B fragment is one row's two words, so W's vector IS two fragments
// (registers used where they land: no MOV touches a load in flight); X's A fragments pair rows g
// and g + 8 (gathered once per step, for every W block).
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
#include <type_traits>

#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/arch/ld_global.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/common/hmma.cuh"
#include "pipegemm/kernels/skinny/partials.hpp"
#include "pipegemm/introspect/mechanism.hpp"

namespace pipegemm::kernels::skinny {

// TIn: __half or __nv_bfloat16; TOut: TIn or float. MAX_X: the thin side (8, 16, 32: m16 tiles,
// padded); ROWS: W rows per CTA (n8 blocks); WARPS: warps splitting the CTA's K; UNROLL: 32-wide
// steps per k_tile; L2: the streamed loads' L2 prefetch span (0 or 256 bytes); VEC: elements per
// global load -- 8 (16-byte rows and pointers) or 2 (any alignment: aligned 4-byte words,
// funnel-shifted). Name: a tag type whose name is the variant's, so the mangled symbol names it.
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
  // fits in 128 registers without spilling, its any-alignment form -- five words a vector in
  // each buffer -- in 168; the wider X forms take what they need, but the 32-row any-alignment
  // form is held to 168, 3 CTAs, as its element form was: left alone it took 182, 2 CTAs).
  static constexpr int kMinBlocks = MAX_X <= 8 ? (VEC == 8 ? 4 : 3) : (MAX_X == 32 && VEC == 2 ? 3 : 2);
  using Mma = common::Hmma16816F32<TIn>;

  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::ldg;
    m.load_bytes = VEC * int(sizeof(TIn));  // 16, or 4-byte words
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
  static_assert(VEC == 8 || VEC == 2, "16-byte vectors, or 4-byte words at any 2-byte offset");
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

// What a lane's load of 8 elements (k .. k+7 of a row) leaves in registers until its MMAs: the
// 16-byte vector itself (VEC 8), or five aligned words around it (VEC 2) that `get` shifts into
// place by the row's offset (0 or 16 bits: a row's k stays a multiple of 8, so its offset in a
// word never changes). Shifting at the MMAs, not at the loads: a shift right after its loads waits
// for them, and the element form this replaced (docs/skinny.md) had the next k_tile's loads land
// before this one's MMAs could issue -- no overlap inside a warp (0.68 of the 16-byte form's rate).
template <int VEC>
struct RawVec {
  uint4 v;
  __device__ __forceinline__ uint4 get(uint32_t) const { return v; }
};
template <>
struct RawVec<2> {
  uint32_t w[5];
  __device__ __forceinline__ uint4 get(uint32_t shift) const {
    return make_uint4(__funnelshift_r(w[0], w[1], shift), __funnelshift_r(w[1], w[2], shift),
                      __funnelshift_r(w[2], w[3], shift), __funnelshift_r(w[3], w[4], shift));
  }
};

// A row as the loads see it: its first element's address, and for VEC 2 the bits its elements sit
// above the aligned word that holds them.
template <class TA>
struct RowPtr {
  const TA* p;
  uint32_t shift;  // (address % 4) * 8: 0 or 16
};
template <class TA>
__device__ __forceinline__ RowPtr<TA> row_ptr(const TA* p) {
  return {p, uint32_t(reinterpret_cast<uintptr_t>(p) & 2u) * 8u};
}

// Elements k .. k+7 by element loads (K's partial k_tile). Past K, zeros -- in both operands, so a
// product past the edge is 0 * 0, never 0 * whatever lies beyond the row.
template <class TA>
__device__ __forceinline__ uint4 load8_elements(const TA* row, int k, int K) {
  const uint16_t* r = reinterpret_cast<const uint16_t*>(row);
  uint32_t h[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    // Past K the row's last element is read (always a valid address) and replaced by 0: no
    // predicate or branch on the load itself. `k + i < K ? load : 0` became, in the 32-row form,
    // a branch and a reconvergence around each of the tail's 64 loads (SASS: BSSY BRA LDG BSYNC).
    const uint32_t x = __ldg(r + min(k + i, K - 1));
    h[i] = k + i < K ? x : 0u;
  }
  return make_uint4(h[0] | h[1] << 16, h[2] | h[3] << 16, h[4] | h[5] << 16, h[6] | h[7] << 16);
}

// Elements k .. k+7 of a row (k a multiple of 8). VEC 2 reads the aligned words from the one that
// holds element k to the one that holds element k+7 (a fifth only when the row sits 2 bytes into a
// word), so besides them at most elements k-1 and k+8: element -1 is the 2 bytes before the row (the
// previous row's last element or padding, or the 2 bytes before the matrix inside its allocation,
// whose start is aligned), and the main loop runs such loads only where k + 9 <= K (whole k_tiles
// ending below K - 1). The shifts drop both.
template <class Cfg, bool kStream>
__device__ __forceinline__ RawVec<Cfg::kVec> load8(RowPtr<typename Cfg::TA> row, int k) {
  RawVec<Cfg::kVec> r;
  if constexpr (Cfg::kVec == 8) {
    r.v = kStream ? arch::ld_global_nc_stream_v4<Cfg::kL2Prefetch>(row.p + k) : arch::ld_global_nc_v4(row.p + k);
  } else {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(reinterpret_cast<uintptr_t>(row.p + k) & ~uintptr_t(3));
    // L1-allocating loads, W's too: a lane's five words and its neighbours' share sectors.
    constexpr int kL2 = kStream ? Cfg::kL2Prefetch : 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) r.w[j] = arch::ld_global_nc_b32<kL2>(w + j);
    r.w[4] = 0u;
    if (row.shift) r.w[4] = arch::ld_global_nc_b32<kL2>(w + 4);
  }
  return r;
}

// K's partial k_tile: 8 elements already as fragments (a RawVec<8>), zeros past K.
template <class Cfg, bool kStream>
__device__ __forceinline__ RawVec<8> load8_tail(RowPtr<typename Cfg::TA> row, int k, int K) {
  // VEC 8: wholly past K, zeros, nothing read; only the vector that straddles K takes the element
  // loads (at a tiny K -- 8: one vector a row -- every other lane of the tail k_tile did 8 of them).
  // VEC 2 takes the element loads throughout: a branch between its words and the elements
  // (divergent at the lane that reaches K) cost each vector a memory latency of its own, in turn
  // (4x11559x57: 3.7 -> 6.7 us, H100).
  if constexpr (Cfg::kVec == 8) {
    if (k >= K) return {make_uint4(0u, 0u, 0u, 0u)};
    if (k + 8 <= K) return load8<Cfg, kStream>(row, k);
  }
  return {load8_elements(row.p, k, K)};
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

template <class TD>
__device__ __forceinline__ TD to_d(float v) {
  if constexpr (std::is_same_v<TD, __half>) return __float2half_rn(v);
  else if constexpr (std::is_same_v<TD, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return v;
}

// One warp's k_tile in registers: (UNROLL steps) x (kWB n8 blocks) of W, x (kXT m16 tiles x rows
// g, g+8) of X, as RawVec<VEC>: the loads as they land (VEC = kVec), or the tail's fragments (8).
template <class Cfg, int VEC>
struct SkinnyFragments {
  RawVec<VEC> w[Cfg::kUnroll][Cfg::kWB];
  RawVec<VEC> x[Cfg::kUnroll][Cfg::kXT][Cfg::kMaxX > 8 ? 2 : 1];
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
  RowPtr<TA> wrow[WB];
  RowPtr<TA> xrow[XT][kXHalves];
  const TA* w = args.w + int64_t(bt) * args.stride_w;
  const TA* x = args.x + int64_t(bt) * args.stride_x;
#pragma unroll
  for (int wb = 0; wb < WB; ++wb) wrow[wb] = row_ptr(w + int64_t(min(row0 + 8 * wb + g, args.n_w - 1)) * args.ldw);
#pragma unroll
  for (int xt = 0; xt < XT; ++xt)
#pragma unroll
    for (int h = 0; h < kXHalves; ++h) xrow[xt][h] = row_ptr(x + int64_t(min(16 * xt + 8 * h + g, args.n_x - 1)) * args.ldx);

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

  using Raw = SkinnyFragments<Cfg, Cfg::kVec>;
  using Tail = SkinnyFragments<Cfg, 8>;
  auto load_k_tile = [&](Raw& f, int kt) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = kt * Cfg::kWarpK + u * Cfg::kStepK + 8 * t;
#pragma unroll
      for (int wb = 0; wb < WB; ++wb) f.w[u][wb] = load8<Cfg, true>(wrow[wb], k);
#pragma unroll
      for (int xt = 0; xt < XT; ++xt)
#pragma unroll
        for (int h = 0; h < kXHalves; ++h) f.x[u][xt][h] = load8<Cfg, false>(xrow[xt][h], k);
    }
  };
  auto load_tail = [&](Tail& f, int kt) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k = kt * Cfg::kWarpK + u * Cfg::kStepK + 8 * t;
#pragma unroll
      for (int wb = 0; wb < WB; ++wb) f.w[u][wb] = load8_tail<Cfg, true>(wrow[wb], k, K);
#pragma unroll
      for (int xt = 0; xt < XT; ++xt)
#pragma unroll
        for (int h = 0; h < kXHalves; ++h) f.x[u][xt][h] = load8_tail<Cfg, false>(xrow[xt][h], k, K);
    }
  };
  // A step's vector word j = pair (2j, 2j + 1) of the lane's 8 elements: m16n8k16 number s takes
  // words 2s and 2s + 1 as its k pairs (2t, 2t+1) and (2t+8, 2t+9) -- B = W's row g, A = X's rows
  // g (a0, a2) and g + 8 (a1, a3). The loads become fragments here, just before their MMAs.
  auto mma = [&](const auto& f) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      uint4 xv[XT][kXHalves], wv[WB];
#pragma unroll
      for (int xt = 0; xt < XT; ++xt)
#pragma unroll
        for (int h = 0; h < kXHalves; ++h) xv[xt][h] = f.x[u][xt][h].get(xrow[xt][h].shift);
#pragma unroll
      for (int wb = 0; wb < WB; ++wb) wv[wb] = f.w[u][wb].get(wrow[wb].shift);
#pragma unroll
      for (int s = 0; s < 2; ++s)
#pragma unroll
        for (int xt = 0; xt < XT; ++xt) {
          const uint32_t a0 = word(xv[xt][0], 2 * s), a1 = word(xv[xt][kXHalves - 1], 2 * s);
          const uint32_t a2 = word(xv[xt][0], 2 * s + 1), a3 = word(xv[xt][kXHalves - 1], 2 * s + 1);
#pragma unroll
          for (int wb = 0; wb < WB; ++wb) {
            float* c = acc[xt][wb];
            Cfg::Mma::fma(c[0], c[1], c[2], c[3], a0, a1, a2, a3, word(wv[wb], 2 * s), word(wv[wb], 2 * s + 1),
                          c[0], c[1], c[2], c[3]);
          }
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
  // wait for the loads just issued -- `pipegemm sass` flags it). DRAM latency hides
  // under this warp's MMAs and under the SM's other warps; the bytes in flight set the rate.
  // Only whole k_tiles run here: no element predicate (nor branch) inside the loop.
  // ===== DRAIN ===============================================================================
  // The last whole k_tile's MMAs, then K's partial k_tile (if any) by the warp whose turn it is.
  // k_tiles wholly inside K -- for VEC 2 also below K - 1, the reach of its words (load8): with
  // K % kWarpK == 0 the last whole k_tile is the tail.
  const int first_tail = Cfg::kVec == 8 ? K / Cfg::kWarpK : (K - 1) / Cfg::kWarpK;
  const int full_end = min(kt_end, first_tail);
  int kt = kt_begin + warp;
  if (kt < full_end) {
    Raw f0, f1;
    load_k_tile(f0, kt);
    while (true) {
      const bool more = kt + W < full_end;
      if (more) load_k_tile(f1, kt + W);
      mma(f0);
      if (!more) break;
      kt += W;
      const bool more2 = kt + W < full_end;
      if (more2) load_k_tile(f0, kt + W);
      mma(f1);
      if (!more2) break;
      kt += W;
    }
  }
  if (first_tail < k_tiles && first_tail >= kt_begin && first_tail < kt_end && (first_tail - kt_begin) % W == warp) {
    Tail f;
    load_tail(f, first_tail);
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
    const void* c_elem = common::c_element<TD>(ep, bt, di, dj);
    const float y = common::activate(common::epilogue_linear<TD>(v[i], ep, c_elem, di, dj), ep.act);
    args.d[int64_t(bt) * args.stride_d + di * args.ldd + dj] = to_d<TD>(y);
  }
}

}  // namespace pipegemm::kernels::skinny
