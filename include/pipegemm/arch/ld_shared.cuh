// ld.shared / st.shared by a 32-bit shared-window address. A pointer into dynamic shared memory
// that went through an integer (the 1024-byte alignment of the smem base) is generic to NVVM, so
// plain C++ accesses through it become generic LD/ST; these keep the shared state space.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

__device__ __forceinline__ float lds_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ uint32_t lds_b32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ float4 lds_v4_f32(uint32_t addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
  return v;
}

// ld.shared::cluster.v4.f32: the 16 bytes at the same shared-window offset in cluster CTA `rank`
// (mapa translates the address; `rank` may be this CTA's own). The reader orders it after the
// owner's writes with a cluster barrier (arch::cluster_sync).
__device__ __forceinline__ float4 ld_dsmem_v4_f32(uint32_t addr, uint32_t rank) {
  float4 v;
  asm volatile(
      "{\n.reg .u32 remote;\nmapa.shared::cluster.u32 remote, %4, %5;\n"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(addr), "r"(rank)
      : "memory");
  return v;
}

__device__ __forceinline__ void sts_f32(uint32_t addr, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}

}  // namespace pipegemm::arch
