// cp.async (LDGSTS) by a 32-bit shared-window address: global -> shared without registers, for
// copies a kernel makes outside its TMA ring (k5 stream-K: a partial tile into the idle ring).
// (k1..k4 reach the same instruction through CuTe's copy atoms.)
#pragma once

#include <cstdint>

namespace pipegemm::arch {

// 16 bytes, cached in L2 only (.cg): data another SM wrote is read from L2, never a stale L1 line.
__device__ __forceinline__ void cp_async_cg_16(uint32_t smem_addr, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr), "l"(gmem) : "memory");
}

// Commits this thread's cp.async and waits until every one of them has landed in shared memory
// (its own only: a barrier makes them visible to the other threads).
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
}

}  // namespace pipegemm::arch
