// The store epilogues: a consumer's (64, BN) accumulators -> D's type, stmatrix into a swizzled
// (64 rows, 128 bytes) chunk buffer, one thread TMA-stores the chunk (the TMA store clips D's edges).
//
//   EpilogueTmaStore<TOut, EPI_BUFS>       the tile's chunks stored in its own epilogue
//   EpilogueDeferredStore<TOut, EPI_BUFS>  the tile packed into registers, its chunks written and
//                                          stored under the next tile's wgmma
//
// Each consumer warpgroup owns EPI_BUFS chunk buffers: 2 let a chunk's store drain while the next
// is written; 4 (with 3 stages, for short K) hold a whole fp16 tile, so the consumers return to the
// mainloop while all of its stores are in flight. A buffer is rewritten only after its previous
// store has read it (wait_group.read), so the stores drain while the next chunk is written and
// while the next tile's mainloop runs.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/stmatrix.cuh"
#include "pipegemm/arch/tma.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/pipeline/stream_k.cuh"

namespace pipegemm::sm90 {

using kernels::common::pack_pair;

// A 4-byte D element's bits from an accumulator: f32 from f32 or (converted) s32, s32 as is.
template <class TD, class TAcc>
__device__ __forceinline__ uint32_t d_bits(TAcc v) {
  if constexpr (std::is_same_v<TD, float>) return __float_as_uint(float(v));
  else return uint32_t(v);
}

// Writes chunk `CH` (kEpiCols columns) of a consumer's (64, BN) accumulator tile into a
// (64 rows, 128 bytes) smem buffer in the TMA 128-byte swizzle: 16-byte unit u of row r lives
// at unit u ^ (r % 8). Rows 8h..8h+7 of one 8x8 matrix land in 8 distinct bank groups.
template <class Cfg, int CH>
__device__ __forceinline__ void write_d_chunk(const typename Cfg::TAcc (&acc)[Cfg::kAccRegs], uint8_t* buf, int warp,
                                              int lane) {
  using TD = typename Cfg::TD;
  const uint32_t base = arch::smem_u32(buf);
  if constexpr (sizeof(TD) == 2) {
    // 64 columns = 8 n8 blocks; one stmatrix.x4 stores blocks (j, j+1) x row halves (0, 1).
    const int mi = lane >> 3;                        // which of the 4 matrices this lane addresses
    const int row = 16 * warp + 8 * (mi & 1) + (lane & 7);
#pragma unroll
    for (int jp = 0; jp < 4; ++jp) {
      constexpr int j0 = CH * 8;
      const int j = j0 + 2 * jp;
      const int unit = 2 * jp + (mi >> 1);             // 16-byte unit (8 columns) inside the row
      const uint32_t addr = base + row * 128 + ((unit ^ (row & 7)) << 4);
      arch::stmatrix_x4(addr, pack_pair<TD>(acc[4 * j + 0], acc[4 * j + 1]),
                        pack_pair<TD>(acc[4 * j + 2], acc[4 * j + 3]),
                        pack_pair<TD>(acc[4 * j + 4], acc[4 * j + 5]),
                        pack_pair<TD>(acc[4 * j + 6], acc[4 * j + 7]));
    }
  } else {
    // 4-byte D (f32, s32): 32 columns = 4 n8 blocks; each lane stores its two adjacent columns
    // (8 bytes) -- s32 sums as they are, or converted to f32.
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
      const int j = CH * 4 + jj;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 16 * warp + 8 * h + (lane >> 2);
        const int unit = 2 * jj + ((lane & 3) >> 1);
        uint8_t* p = buf + row * 128 + ((unit ^ (row & 7)) << 4) + (lane & 1) * 8;
        if constexpr (std::is_same_v<typename Cfg::TAcc, float>)
          *reinterpret_cast<float2*>(p) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        else
          *reinterpret_cast<uint2*>(p) = make_uint2(d_bits<TD>(acc[4 * j + 2 * h]), d_bits<TD>(acc[4 * j + 2 * h + 1]));
      }
    }
  }
}

// The accumulators as TD pairs in the order stmatrix takes them: packed[2j] = row half 0 and
// packed[2j+1] = row half 1 of n8 block j, i.e. packed[i] = (acc[2i], acc[2i+1]).
template <class Cfg>
__device__ __forceinline__ void pack_accumulators(const float (&acc)[Cfg::kAccRegs],
                                                  uint32_t (&packed)[Cfg::kAccRegs / 2]) {
#pragma unroll
  for (int i = 0; i < Cfg::kAccRegs / 2; ++i) packed[i] = pack_pair<typename Cfg::TD>(acc[2 * i], acc[2 * i + 1]);
}

// write_d_chunk for already packed 16-bit values (the same addresses and swizzle); stmatrix
// JP0 .. JP1-1 of the chunk's four (a part of it: store_d_chunk's PARTS).
template <class Cfg, int CH, int JP0 = 0, int JP1 = 4>
__device__ __forceinline__ void write_d_chunk_packed(const uint32_t (&packed)[Cfg::kAccRegs / 2], uint8_t* buf,
                                                     int warp, int lane) {
  static_assert(sizeof(typename Cfg::TD) == 2, "stmatrix stores 16-bit elements");
  const uint32_t base = arch::smem_u32(buf);
  const int mi = lane >> 3;
  const int row = 16 * warp + 8 * (mi & 1) + (lane & 7);
#pragma unroll
  for (int jp = JP0; jp < JP1; ++jp) {
    const int j = CH * 8 + 2 * jp;
    const int unit = 2 * jp + (mi >> 1);
    const uint32_t addr = base + row * 128 + ((unit ^ (row & 7)) << 4);
    arch::stmatrix_x4(addr, packed[2 * j], packed[2 * j + 1], packed[2 * j + 2], packed[2 * j + 3]);
  }
}

// Calls f(std::integral_constant<int, ch>) for a run-time ch: register arrays are indexed
// only with compile-time constants.
template <class F, int... CH>
__device__ __forceinline__ void with_chunk_index(int ch, F&& f, std::integer_sequence<int, CH...>) {
  ((ch == CH ? f(std::integral_constant<int, CH>{}) : void()), ...);
}

// Part PART of PARTS of epilogue chunk CH of a consumer warpgroup. The first part waits until
// the buffer's previous TMA store (the one kEpiBufs chunks ago, possibly of the previous tile)
// has read it; each part writes its share of the chunk (write_part(buf)); the last makes the
// chunk visible to the async proxy and lets one thread store it (rank 3, at product bt, for the
// batched forms). PARTS > 1 spreads a deferred chunk's stmatrix over PARTS k_tiles of the next
// mainloop.
template <class Cfg, int CH, int PART = 0, int PARTS = 1, class WritePart>
__device__ __forceinline__ void store_d_chunk(WritePart&& write_part, uint8_t* d_bufs, const CUtensorMap* tmap_d,
                                              int m0, int n0, int consumer, int tid_wg, int bt = 0) {
  uint8_t* buf = d_bufs + (CH % Cfg::kEpiBufs) * Cfg::kEpiBufBytes;
  if constexpr (PART == 0) {
    if (tid_wg == 0) arch::tma_store_wait_read<Cfg::kEpiBufs - 1>();
    arch::named_barrier_sync(1 + consumer, 128);
  }
  write_part(buf);
  if constexpr (PART == PARTS - 1) {
    arch::fence_proxy_async_smem();
    arch::named_barrier_sync(1 + consumer, 128);
    if (tid_wg == 0) {
      if constexpr (Cfg::kGeneral)
        arch::tma_store_3d(tmap_d, buf, n0 + CH * Cfg::kEpiCols, m0, bt);
      else
        arch::tma_store_2d(tmap_d, buf, n0 + CH * Cfg::kEpiCols, m0);
      arch::tma_store_commit_group();
    }
  }
}

template <class Cfg, int... CH>
__device__ __forceinline__ void store_d_tile(const typename Cfg::TAcc (&acc)[Cfg::kAccRegs], uint8_t* d_bufs,
                                             const CUtensorMap* tmap_d, int m0, int n0, int consumer, int tid_wg,
                                             std::integer_sequence<int, CH...>, int bt = 0) {
  (store_d_chunk<Cfg, CH>([&](uint8_t* buf) { write_d_chunk<Cfg, CH>(acc, buf, tid_wg / 32, tid_wg % 32); },
                          d_bufs, tmap_d, m0, n0, consumer, tid_wg, bt),
   ...);
}

// What a consumer's epilogue is given once: its chunk buffers, D's map, which consumer it is and
// the thread's index in it.
struct EpilogueContext {
  uint8_t* d_bufs;
  const CUtensorMap* tmap_d;
  int consumer;
  int tid_wg;
  int row_c;  // the consumer's first row in the tile
};

// An epilogue collective is a tag with TD and kEpiBufs and a Collective<Cfg>, one per consumer
// warpgroup (its state across tiles), which the kernel calls around each tile, x its context:
//   Tile t = begin_tile(x, m0, n0, role)        as the tile starts (before its first wait)
//   under_mainloop(x, t, kt, k0, k1, role)      after k_tile kt's wgmma are issued
//   end_tile(x, t, blk, m0, n0, bt, k0, k1)     once its accumulators are final
//   finish(x)                                   after the CTA's last tile
// The context is passed to each call, not kept: made from the kernel's own values at the call, it
// leaves the compiler the same values to work with as a kernel written in one piece.
template <class TOut, int EPI_BUFS>
struct EpilogueTmaStore {
  using TD = TOut;
  static constexpr int kEpiBufs = EPI_BUFS;
  static constexpr bool kDeferredStore = false, kFused = false;

  template <class Cfg>
  struct Collective {
    using Registers = uint32_t[1];
    template <class... Unused>
    __device__ __forceinline__ Collective(const Unused&...) {}
    struct Tile {};
    __device__ __forceinline__ Tile begin_tile(EpilogueContext, int, int, pipeline::SegmentRole) { return {}; }
    __device__ __forceinline__ void under_mainloop(EpilogueContext, Tile&, const int&, const int&, const int&,
                                                   const pipeline::SegmentRole&) {}
    __device__ __forceinline__ void end_tile(EpilogueContext x, Tile&,
                                             typename Cfg::TAcc (&blk)[Cfg::kMBlocks][Cfg::kAccRegs], int m0, int n0,
                                             int bt, int, int) {
      constexpr auto kChunkSeq = std::make_integer_sequence<int, Cfg::kEpiChunks>{};
#pragma unroll
      for (int mb = 0; mb < Cfg::kMBlocks; ++mb)  // a block's chunks reuse the buffers in turn, like a tile's
        store_d_tile<Cfg>(blk[mb], x.d_bufs, x.tmap_d, m0 + x.row_c + 64 * mb, n0, x.consumer, x.tid_wg, kChunkSeq, bt);
    }
    __device__ __forceinline__ void finish(EpilogueContext) {}
  };
};

// Deferred store (16-bit D only): the epilogue only packs the accumulators into 64 registers (the
// fused form: once alpha, C, bias and activation are applied); the tile is written out one chunk
// per k_tile during the next tile's mainloop, under its wgmma, so the tensor cores do not idle
// through the stores (registers: 128 + 64 < 232); with the kernel's chunk_parts P
// ($PIPEGEMM_K5_CHUNK_PARTS) 1/P of a chunk a k_tile.
template <class TOut, int EPI_BUFS>
struct EpilogueDeferredStore {
  using TD = TOut;
  static constexpr int kEpiBufs = EPI_BUFS;
  static constexpr bool kDeferredStore = true, kFused = false;
  static_assert(sizeof(TD) == 2, "a deferred fp32 tile would need 128 more registers");

  template <class Cfg>
  struct Collective {
    // The previous tile's D, packed, waiting to be written out under this tile's wgmma.
    uint32_t (&pending)[Cfg::kAccRegs / 2];
    bool has_pending = false;
    int pending_m0 = 0, pending_n0 = 0, pending_bt = 0;
    const int& chunk_parts;  // the kernel's argument
    const int pending_steps;  // chunk_parts * kEpiChunks
    using Registers = uint32_t[Cfg::kAccRegs / 2];
    template <class... Unused>
    __device__ __forceinline__ Collective(Registers& regs, const int& chunk_parts_, const Unused&...)
        : pending(regs), chunk_parts(chunk_parts_), pending_steps(chunk_parts_ * Cfg::kEpiChunks) {}

    static constexpr auto kChunkSeq = std::make_integer_sequence<int, Cfg::kEpiChunks>{};
    static constexpr auto kStepSeq = std::make_integer_sequence<int, 4 * Cfg::kEpiChunks>{};
    // chunk_parts P (1, 2, 4): each chunk of the pending tile is spread over P k_tiles, 4 / P of
    // its four stmatrix a k_tile, its fence, barrier and TMA store with the last part.
    template <int STEP, int P>  // chunk STEP / P, part STEP % P
    __device__ __forceinline__ void store_pending_part(EpilogueContext x) {
      constexpr int CH = STEP / P, PART = STEP % P;
      if constexpr (CH < Cfg::kEpiChunks)
        store_d_chunk<Cfg, CH, PART, P>(
            [&](uint8_t* buf) {
              write_d_chunk_packed<Cfg, CH, 4 / P * PART, 4 / P * (PART + 1)>(pending, buf, x.tid_wg / 32,
                                                                             x.tid_wg % 32);
            },
            x.d_bufs, x.tmap_d, pending_m0, pending_n0, x.consumer, x.tid_wg, pending_bt);
    }
    __device__ __forceinline__ void store_pending_chunk(EpilogueContext x, int ch) {  // a whole chunk
      with_chunk_index(ch, [&](auto c1) { store_pending_part<decltype(c1)::value, 1>(x); }, kChunkSeq);
    }
    __device__ __forceinline__ void store_pending(EpilogueContext x, int step) {  // the pending tile's step: a chunk or a part of one
      if (chunk_parts == 4)
        with_chunk_index(step, [&](auto st) { store_pending_part<decltype(st)::value, 4>(x); }, kStepSeq);
      else if (chunk_parts == 2)
        with_chunk_index(step, [&](auto st) { store_pending_part<decltype(st)::value, 2>(x); }, kStepSeq);
      else
        store_pending_chunk(x, step);
    }
    // The pending tile's steps from `step` on with no mainloop to hide under (a short mainloop's
    // epilogue, the CTA's last tile): the chunk in progress part by part, then whole chunks --
    // parts there would only add barriers (one commit group a chunk either way).
    __device__ __forceinline__ void flush_pending(EpilogueContext x, int step) {
      for (; step % chunk_parts != 0 && step < pending_steps; ++step) store_pending(x, step);
      for (int ch = step / chunk_parts; ch < Cfg::kEpiChunks; ++ch) store_pending_chunk(x, ch);
    }

    struct Tile {};
    __device__ __forceinline__ Tile begin_tile(EpilogueContext, int, int, pipeline::SegmentRole) { return {}; }
    // One step of the previous tile a k_tile, under this one's wgmma.
    __device__ __forceinline__ void under_mainloop(EpilogueContext x, Tile&, int kt, int k0, const int&,
                                                   const pipeline::SegmentRole&) {
      if (has_pending && kt - k0 < pending_steps) store_pending(x, kt - k0);
    }
    // The chunks of the previous tile a short mainloop had no k_tile for go out first, then this
    // tile becomes pending.
    __device__ __forceinline__ void end_tile(EpilogueContext x, Tile&,
                                             typename Cfg::TAcc (&blk)[Cfg::kMBlocks][Cfg::kAccRegs], int m0, int n0,
                                             int bt, int k0, int k1) {
      if (has_pending) flush_pending(x, k1 - k0);
      pack_accumulators<Cfg>(blk[0], pending);
      pending_m0 = m0 + x.row_c;
      pending_n0 = n0;
      pending_bt = bt;
      has_pending = true;
    }
    // The last tile has no next mainloop to hide under.
    __device__ __forceinline__ void finish(EpilogueContext x) {
      if (has_pending) flush_pending(x, 0);
    }
  };
};

}  // namespace pipegemm::sm90
