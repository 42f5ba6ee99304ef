// The clocks and the SM id a trace stamp reads (pipeline/trace.cuh). Only traced builds call
// them; "memory" keeps the compiler from moving loads and stores across a stamp.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

// %clock64: this SM's cycle counter. Cycle resolution and a few cycles to read, but each SM
// counts on its own (no common zero) and at the SM clock (which the GPU changes).
__device__ __forceinline__ uint64_t clock_cycles() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) : : "memory");
  return c;
}

// %globaltimer: nanoseconds, one clock for the whole GPU; its resolution is the driver's
// (32 ns to 1 us), which is why stamps carry clock64 and this only aligns SMs.
__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  return t;
}

// %smid: the SM this thread runs on (stable for a CTA's lifetime).
__device__ __forceinline__ uint32_t sm_id() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

}  // namespace pipegemm::arch
