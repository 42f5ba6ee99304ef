// stmatrix (sm_90): a warp stores four 8x8 b16 matrices to shared memory. Register i of lane
// t holds row t/4, columns 2(t%4), 2(t%4)+1 of matrix i -- the mma/wgmma accumulator fragment
// layout -- and lane t supplies the address of row t%8 of matrix t/8 (16 contiguous bytes).
#pragma once

#include <cstdint>

namespace pipegemm::arch {

__device__ __forceinline__ void stmatrix_x4(uint32_t smem_addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// The same with .trans: each 8x8 matrix is stored transposed -- lane t's register i (row t/4,
// columns 2(t%4), 2(t%4)+1 of matrix i) lands in column t/4 of rows 2(t%4), 2(t%4)+1 -- so a
// fragment of D^T (an RS wgmma of the weight against the stream) is written as rows of D. Lane t
// supplies the address of row t%8 of stored matrix t/8, as above.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t smem_addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                                  uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

}  // namespace pipegemm::arch
