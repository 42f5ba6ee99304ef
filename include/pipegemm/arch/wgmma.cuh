// wgmma (sm_90a): warpgroup-wide asynchronous MMA. A and B are read from shared memory
// through 64-bit matrix descriptors, D accumulates in registers. The issue/commit/wait protocol:
//   wgmma_fence()        before the first wgmma that touches registers written otherwise
//   wgmma_m64n256k16_*   any number of MMAs (asynchronous)
//   wgmma_commit_group() close them into one group
//   wgmma_wait_group<N>  until at most N groups are in flight (their smem may then be reused)
// Accumulator fragment of m64nNk16, fp32 (lane l of warp w in the warpgroup), for n8 block j:
//   d[4j+0], d[4j+1] -> row 16w + l/4,     columns 8j + 2(l%4) + {0,1}
//   d[4j+2], d[4j+3] -> row 16w + 8 + l/4, same columns
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "pipegemm/arch/mbarrier.cuh"

namespace pipegemm::arch {

// Matrix descriptor of a K-major operand tile stored with the 128-byte swizzle (the layout a
// TMA load with CU_TENSOR_MAP_SWIZZLE_128B writes): rows of 128 bytes (64 fp16/bf16 of K),
// 8-row core groups of 1024 bytes.
//   bits  0-13 start address >> 4        bits 16-29 LBO >> 4 (unused for swizzled K-major: 1)
//   bits 32-45 SBO >> 4 = 1024 B between 8-row groups
//   bits 49-51 base offset (0: tiles are 1024-byte aligned)   bits 62-63 swizzle: 1 = 128B
// Stepping K by 16 elements inside the 128-byte row adds 32 bytes (+2 in the address field);
// the hardware applies the swizzle to the final address, so this stays valid.
__device__ __forceinline__ uint64_t wgmma_desc_kmajor_sw128(const void* smem_tile) {
  const uint64_t addr = smem_u32(smem_tile);
  return ((addr & 0x3FFFFull) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}
constexpr uint64_t kWgmmaDescK16Step = 32 >> 4;  // +32 bytes: the next 16 K-elements of a 128-byte row

// Matrix descriptor of an MN-major operand tile (M- or N-contiguous: a transposed operand, taken
// with imm-trans = 1) as TMA boxes of (64 MN-elements = 128 bytes, K rows) write it with the
// 128-byte swizzle: each K row holds 64 consecutive M (or N) elements, 8 K rows make a
// 1024-byte swizzle period, and the next 64 of MN sit `mn_chunk_bytes` further on (the next box).
// With trans = 1 the two offsets swap roles:
//   LBO = mn_chunk_bytes (between 64-element groups along MN)   SBO = 1024 B (between 8-row K groups)
// Stepping K by 16 elements moves 16 rows of 128 bytes: +2048 bytes, two whole swizzle periods.
__device__ __forceinline__ uint64_t wgmma_desc_mnmajor_sw128(const void* smem_tile, uint32_t mn_chunk_bytes) {
  const uint64_t addr = smem_u32(smem_tile);
  return ((addr & 0x3FFFFull) >> 4) | (uint64_t(mn_chunk_bytes >> 4) << 16) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t(1) << 62);
}
constexpr uint64_t kWgmmaDescMnK16Step = 2048 >> 4;  // +2048 bytes: the next 16 K rows of an MN-major tile

// wgmma.fence.sync.aligned: order earlier register accesses (e.g. the epilogue reading the
// accumulators) before the next wgmma writes them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// wgmma.commit_group.sync.aligned
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// wgmma.wait_group.sync.aligned N
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator reads/writes across a wgmma wait.
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// T = __half or __nv_bfloat16 (the operand type).
// D (64x256, fp32) (+)= A (64x16 smem) * B (256x16 smem)^T. TRANS_A / TRANS_B (imm-trans-a/b):
// 0 = the operand's tile is K-major, 1 = MN-major (16-bit types only: the hardware transposes).
// `accumulate` false overwrites D (scale-d = 0): the first k_block of a tile needs no zeroing.
template <class T>
struct WgmmaM64N256K16F32;

// The two instantiations differ only in the A/B type of the PTX instruction ("f16" / "bf16"):
// one asm body, stamped out per type.
#define PIPEGEMM_WGMMA_M64N256K16_F32_BODY(AB) \
    asm volatile(                                                                                                       \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                                     \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." AB "." AB " {"                                                     \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                          \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                                \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                                \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                                \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                                \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                                \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "                    \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"                  \
      "}, %128, %129, p, 1, 1, %131, %132;\n}\n"                                                                        \
      :                                                                                                                 \
        "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),                 \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),           \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),         \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),         \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),         \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),         \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),         \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),         \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),         \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),         \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),         \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),         \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),     \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])  \
      : "l"(desc_a), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_A), "n"(TRANS_B));                                \

template <>
struct WgmmaM64N256K16F32<__half> {
  template <int TRANS_A = 0, int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[128], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    PIPEGEMM_WGMMA_M64N256K16_F32_BODY("f16")
  }
};

template <>
struct WgmmaM64N256K16F32<__nv_bfloat16> {
  template <int TRANS_A = 0, int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[128], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    PIPEGEMM_WGMMA_M64N256K16_F32_BODY("bf16")
  }
};

#undef PIPEGEMM_WGMMA_M64N256K16_F32_BODY

}  // namespace pipegemm::arch
