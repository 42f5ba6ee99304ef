// A flag in global memory between CTAs of one grid (k5 stream-K: a partial sum is ready): the
// writer's stores, then a release store of the flag; the reader's acquire load sees them.
#pragma once

namespace pipegemm::arch {

// st.release.gpu: every write this thread made (or saw, through a barrier) before it is visible
// to whoever acquires the value.
__device__ __forceinline__ void st_release_gpu(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// ld.acquire.gpu: the loads after it see what the releasing writer published.
__device__ __forceinline__ int ld_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

}  // namespace pipegemm::arch
