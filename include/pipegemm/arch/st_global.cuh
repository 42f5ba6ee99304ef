// Global stores written as the instruction they must be.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

// 16 bytes to global memory at p (16-byte aligned), as one vector store: where the compiler is
// left to merge four 4-byte stores it may not (shortk's row stores came out as 4 x STG.E).
__device__ __forceinline__ void st_global_v4(void* p, uint4 v) {
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

}  // namespace pipegemm::arch
