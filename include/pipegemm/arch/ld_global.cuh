// Global loads issued exactly where they are written (asm volatile: ordered with the other volatile
// asm around them, e.g. the mainloop's wgmma or mma.sync), for values loaded early so that their
// latency hides under later work. A plain load may be sunk to its first use -- for k5's bias, to
// the end of the mainloop, where its whole latency shows (docs/semantics.md). Read-only (.nc) data.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

__device__ __forceinline__ uint16_t ld_global_nc_early_b16(const void* p) {
  uint16_t v;
  asm volatile("ld.global.nc.b16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}

// One 16-bit element of read-only data where `pred`, else 0: a predicated load (no branch, no
// select held until the value's use), so a tile's loads all issue before its first store (shortk's
// fill; p need not be a valid address when !pred).
__device__ __forceinline__ uint16_t ld_global_nc_b16_or_zero(const void* p, bool pred) {
  uint16_t v;
  asm volatile(
      "{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n mov.b16 %0, 0;\n @q ld.global.nc.b16 %0, [%1];\n}"
      : "=h"(v)
      : "l"(p), "r"(int(pred)));
  return v;
}

// 16 bytes of read-only data that no other thread of the SM reads again (a thin GEMM's streamed
// weights): L1::no_allocate keeps it from evicting what is reused. kL2Prefetch = 256: L2 fetches
// the whole 256-byte span from DRAM on a miss (the CTA's other warps read the rest of it next).
// asm volatile: issued where written, so the next k_tile's loads leave before this one's
// mma.sync (also volatile).
template <int kL2Prefetch = 0>
__device__ __forceinline__ uint4 ld_global_nc_stream_v4(const void* p) {
  static_assert(kL2Prefetch == 0 || kL2Prefetch == 256, "no prefetch, or L2::256B");
  uint4 v;
  if constexpr (kL2Prefetch == 256)
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  else
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  return v;
}

// One 4-byte word of read-only data, kept in L1 (k5's f32 bias; a thin GEMM's rows off 16 bytes,
// read as five such words a lane for 8 elements -- the warp's neighbouring words are L1 hits: with
// L1::no_allocate every word went to L2, 5x the sectors, 1.2-1.9x the time). kL2Prefetch as above.
template <int kL2Prefetch = 0>
__device__ __forceinline__ uint32_t ld_global_nc_b32(const void* p) {
  static_assert(kL2Prefetch == 0 || kL2Prefetch == 256, "no prefetch, or L2::256B");
  uint32_t v;
  if constexpr (kL2Prefetch == 256)
    asm volatile("ld.global.nc.L2::256B.b32 %0, [%1];" : "=r"(v) : "l"(p));
  else
    asm volatile("ld.global.nc.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

// 16 bytes of read-only data that other CTAs read too (a thin GEMM's small operand, an L2 hit).
__device__ __forceinline__ uint4 ld_global_nc_v4(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

}  // namespace pipegemm::arch
