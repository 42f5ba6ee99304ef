// wgmma (sm_90a): warpgroup-wide asynchronous MMA. A and B are read from shared memory
// through 64-bit matrix descriptors, D accumulates in registers. The issue/commit/wait protocol:
//   wgmma_fence()        before the first wgmma that touches registers written otherwise
//   WgmmaM64<T, N>::type::mma   any number of MMAs (asynchronous)
//   wgmma_commit_group() close them into one group
//   wgmma_wait_group<N>  until at most N groups are in flight (their smem may then be reused)
// The RS form (mma_rs) takes A from registers instead: warp w of the warpgroup holds rows
// 16w..16w+15 of the 64x16 A block in mma.sync's m16n8k16 A layout (lane l, g = l/4, q = l%4):
//   a[0] = (row g,     k 2q, 2q+1)   a[1] = (row g + 8, k 2q, 2q+1)
//   a[2] = (row g,     k 2q+8, +9)   a[3] = (row g + 8, k 2q+8, +9)      (two 16-bit values each, low first)
// Accumulator fragment of m64nNk16, fp32 (lane l of warp w in the warpgroup), for n8 block j:
//   d[4j+0], d[4j+1] -> row 16w + l/4,     columns 8j + 2(l%4) + {0,1}
//   d[4j+2], d[4j+3] -> row 16w + 8 + l/4, same columns
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

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
constexpr uint64_t kWgmmaDescK16Step = 32 >> 4;  // +32 bytes: the next 16 (s8: 32) K-elements of a 128-byte row

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
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(int32_t (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// The accumulators' registers: "+f" (fp32) or "+r" (s32), 64 of them from d[o] per
// PIPEGEMM_WGMMA_D64, named %0.. in the instruction's {list}; after them the descriptors, then
// `accumulate` and imm-trans-a/b (the integer form has no transpose: its tail ignores them).
#define PIPEGEMM_WGMMA_R0_63 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PIPEGEMM_WGMMA_R0_31 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PIPEGEMM_WGMMA_R64_127 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define PIPEGEMM_WGMMA_R64_95 \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define PIPEGEMM_WGMMA_D32(C, o) \
  C(d[(o) + 0]), C(d[(o) + 1]), C(d[(o) + 2]), C(d[(o) + 3]), C(d[(o) + 4]), C(d[(o) + 5]), C(d[(o) + 6]), C(d[(o) + 7]), \
  C(d[(o) + 8]), C(d[(o) + 9]), C(d[(o) + 10]), C(d[(o) + 11]), C(d[(o) + 12]), C(d[(o) + 13]), C(d[(o) + 14]), C(d[(o) + 15]), \
  C(d[(o) + 16]), C(d[(o) + 17]), C(d[(o) + 18]), C(d[(o) + 19]), C(d[(o) + 20]), C(d[(o) + 21]), C(d[(o) + 22]), C(d[(o) + 23]), \
  C(d[(o) + 24]), C(d[(o) + 25]), C(d[(o) + 26]), C(d[(o) + 27]), C(d[(o) + 28]), C(d[(o) + 29]), C(d[(o) + 30]), C(d[(o) + 31])
#define PIPEGEMM_WGMMA_D64(C, o) \
  C(d[(o) + 0]), C(d[(o) + 1]), C(d[(o) + 2]), C(d[(o) + 3]), C(d[(o) + 4]), C(d[(o) + 5]), C(d[(o) + 6]), C(d[(o) + 7]), \
  C(d[(o) + 8]), C(d[(o) + 9]), C(d[(o) + 10]), C(d[(o) + 11]), C(d[(o) + 12]), C(d[(o) + 13]), C(d[(o) + 14]), C(d[(o) + 15]), \
  C(d[(o) + 16]), C(d[(o) + 17]), C(d[(o) + 18]), C(d[(o) + 19]), C(d[(o) + 20]), C(d[(o) + 21]), C(d[(o) + 22]), C(d[(o) + 23]), \
  C(d[(o) + 24]), C(d[(o) + 25]), C(d[(o) + 26]), C(d[(o) + 27]), C(d[(o) + 28]), C(d[(o) + 29]), C(d[(o) + 30]), C(d[(o) + 31]), \
  C(d[(o) + 32]), C(d[(o) + 33]), C(d[(o) + 34]), C(d[(o) + 35]), C(d[(o) + 36]), C(d[(o) + 37]), C(d[(o) + 38]), C(d[(o) + 39]), \
  C(d[(o) + 40]), C(d[(o) + 41]), C(d[(o) + 42]), C(d[(o) + 43]), C(d[(o) + 44]), C(d[(o) + 45]), C(d[(o) + 46]), C(d[(o) + 47]), \
  C(d[(o) + 48]), C(d[(o) + 49]), C(d[(o) + 50]), C(d[(o) + 51]), C(d[(o) + 52]), C(d[(o) + 53]), C(d[(o) + 54]), C(d[(o) + 55]), \
  C(d[(o) + 56]), C(d[(o) + 57]), C(d[(o) + 58]), C(d[(o) + 59]), C(d[(o) + 60]), C(d[(o) + 61]), C(d[(o) + 62]), C(d[(o) + 63])
#define PIPEGEMM_WGMMA_M64N256_BODY(INSTR, C, TAIL)                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_63 ", "        \
               PIPEGEMM_WGMMA_R64_127 "}, %128, %129, " TAIL ";\n}\n"                                  \
               : PIPEGEMM_WGMMA_D64(C, 0), PIPEGEMM_WGMMA_D64(C, 64)                                    \
               : "l"(desc_a), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_A), "n"(TRANS_B));
// The m64n192 form (BN = 192 tiles, two m64 blocks a consumer: 96 registers each): %96 and %97
// the descriptors, %98 `accumulate`, %99 and %100 imm-trans-a/b.
#define PIPEGEMM_WGMMA_M64N192_BODY(INSTR, C, TAIL)                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_63 ", "         \
               PIPEGEMM_WGMMA_R64_95 "}, %96, %97, " TAIL ";\n}\n"                                      \
               : PIPEGEMM_WGMMA_D64(C, 0), PIPEGEMM_WGMMA_D32(C, 64)                                    \
               : "l"(desc_a), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_A), "n"(TRANS_B));
// The m64n128 form (BN = 128 tiles: half the accumulators, 64 registers per thread): %64 and %65
// the descriptors, %66 `accumulate`, %67 and %68 imm-trans-a/b.
#define PIPEGEMM_WGMMA_M64N128_BODY(INSTR, C, TAIL)                                            \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_63        \
               "}, %64, %65, " TAIL ";\n}\n"                                                          \
               : PIPEGEMM_WGMMA_D64(C, 0)                                                              \
               : "l"(desc_a), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_A), "n"(TRANS_B));
// The m64n64 form (BN = 64 tiles, issue 12's M = 65..256 rows: 32 registers per thread): %32 and
// %33 the descriptors, %34 `accumulate`, %35 and %36 imm-trans-a/b.
#define PIPEGEMM_WGMMA_M64N64_BODY(INSTR, C, TAIL)                                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_31        \
               "}, %32, %33, " TAIL ";\n}\n"                                                          \
               : PIPEGEMM_WGMMA_D32(C, 0)                                                              \
               : "l"(desc_a), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_A), "n"(TRANS_B));

// The RS forms (A from four registers, arch comment above): %N+0..%N+3 the A registers, %N+4 the
// B descriptor, %N+5 `accumulate`, %N+6 imm-trans-b (A in registers cannot be transposed).
#define PIPEGEMM_WGMMA_RS_A "{%32, %33, %34, %35}, %36"
#define PIPEGEMM_WGMMA_M64N64_RS_BODY(INSTR)                                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_31               \
               "}, " PIPEGEMM_WGMMA_RS_A ", p, 1, 1, %38;\n}\n"                                           \
               : PIPEGEMM_WGMMA_D32("+f", 0)                                                            \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_B));
#define PIPEGEMM_WGMMA_M64N128_RS_BODY(INSTR)                                                         \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n" INSTR " {" PIPEGEMM_WGMMA_R0_63               \
               "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"                                         \
               : PIPEGEMM_WGMMA_D64("+f", 0)                                                            \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(int32_t(accumulate)), "n"(TRANS_B));

// D (64xN, fp32) (+)= A (64x16 smem) * B (Nx16 smem)^T, N = 256, 192, 128 or 64, T = __half or
// __nv_bfloat16 (the operand type). TRANS_A / TRANS_B (imm-trans-a/b): 0 = the operand's tile is
// K-major, 1 = MN-major (16-bit types only: the hardware transposes). `accumulate` false
// overwrites D (scale-d = 0): the first k_block of a tile needs no zeroing. kK: the K of one
// instruction.
template <class T, int N>
struct WgmmaM64F32 {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "fp16 or bf16 operands");
  static_assert(N == 256 || N == 192 || N == 128 || N == 64, "m64n256, m64n192, m64n128 or m64n64");
  static constexpr int kK = 16;
  template <int TRANS_A = 0, int TRANS_B = 0>
  __device__ __forceinline__ static void mma(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    if constexpr (N == 256 && std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N256_BODY("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "+f", "p, 1, 1, %131, %132")
    else if constexpr (N == 256)
      PIPEGEMM_WGMMA_M64N256_BODY("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "+f", "p, 1, 1, %131, %132")
    else if constexpr (N == 192 && std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N192_BODY("wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16", "+f", "p, 1, 1, %99, %100")
    else if constexpr (N == 192)
      PIPEGEMM_WGMMA_M64N192_BODY("wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16", "+f", "p, 1, 1, %99, %100")
    else if constexpr (N == 64 && std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N64_BODY("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "+f", "p, 1, 1, %35, %36")
    else if constexpr (N == 64)
      PIPEGEMM_WGMMA_M64N64_BODY("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "+f", "p, 1, 1, %35, %36")
    else if constexpr (std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N128_BODY("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "+f", "p, 1, 1, %67, %68")
    else
      PIPEGEMM_WGMMA_M64N128_BODY("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "+f", "p, 1, 1, %67, %68")
  }
  // The same with A (64x16) from registers a[0..3] (the RS form; layout at the top), N = 128 or 64.
  template <int TRANS_B = 0>
  __device__ __forceinline__ static void mma_rs(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t desc_b,
                                                bool accumulate) {
    static_assert(N == 128 || N == 64, "the RS form is wrapped for m64n128 and m64n64");
    if constexpr (N == 64 && std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N64_RS_BODY("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16")
    else if constexpr (N == 64)
      PIPEGEMM_WGMMA_M64N64_RS_BODY("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16")
    else if constexpr (std::is_same_v<T, __half>)
      PIPEGEMM_WGMMA_M64N128_RS_BODY("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16")
    else
      PIPEGEMM_WGMMA_M64N128_RS_BODY("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16")
  }
};

// D (64xN, s32) (+)= A (64x32 s8 smem) * B (Nx32 s8 smem)^T, N = 256 or 192, exact (wrapping)
// integer sums. Integer wgmma reads only K-major tiles (no imm-trans), so TRANS_A / TRANS_B must be 0.
template <int N>
struct WgmmaM64S32S8 {
  static_assert(N == 256 || N == 192, "m64n256 or m64n192");
  static constexpr int kK = 32;
  template <int TRANS_A = 0, int TRANS_B = 0>
  __device__ __forceinline__ static void mma(int32_t (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    static_assert(TRANS_A == 0 && TRANS_B == 0, "s8 wgmma takes K-major operands only");
    if constexpr (N == 256)
      PIPEGEMM_WGMMA_M64N256_BODY("wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "+r", "p")
    else
      PIPEGEMM_WGMMA_M64N192_BODY("wgmma.mma_async.sync.aligned.m64n192k32.s32.s8.s8", "+r", "p")
  }
};

#undef PIPEGEMM_WGMMA_M64N256_BODY
#undef PIPEGEMM_WGMMA_M64N192_BODY
#undef PIPEGEMM_WGMMA_M64N128_BODY
#undef PIPEGEMM_WGMMA_M64N64_BODY
#undef PIPEGEMM_WGMMA_M64N64_RS_BODY
#undef PIPEGEMM_WGMMA_M64N128_RS_BODY
#undef PIPEGEMM_WGMMA_RS_A
#undef PIPEGEMM_WGMMA_D64
#undef PIPEGEMM_WGMMA_D32
#undef PIPEGEMM_WGMMA_R64_95
#undef PIPEGEMM_WGMMA_R64_127
#undef PIPEGEMM_WGMMA_R0_63
#undef PIPEGEMM_WGMMA_R0_31

// The wgmma of an operand type and tile width N: fp32 accumulators for 16-bit inputs (N = 256,
// 192, 128 or 64), s32 for s8 (N = 256 or 192).
template <class T, int N = 256>
struct WgmmaM64 {
  using type = std::conditional_t<std::is_same_v<T, int8_t>, WgmmaM64S32S8<N>, WgmmaM64F32<T, N>>;
};

}  // namespace pipegemm::arch
