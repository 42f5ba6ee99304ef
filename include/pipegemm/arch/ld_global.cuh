// A global load issued exactly where it is written (asm volatile: ordered with the other volatile
// asm around it, e.g. the mainloop's wgmma), for a value loaded early so that its latency hides
// under later work. A plain load may be sunk to its first use -- for k5's bias, to the end of the
// mainloop, where its whole latency shows (session 7). Read-only (.nc) data.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

__device__ __forceinline__ uint32_t ld_global_nc_early_b32(const void* p) {
  uint32_t v;
  asm volatile("ld.global.nc.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

__device__ __forceinline__ uint16_t ld_global_nc_early_b16(const void* p) {
  uint16_t v;
  asm volatile("ld.global.nc.b16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}

}  // namespace pipegemm::arch
