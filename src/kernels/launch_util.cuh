// Small host helpers every launcher shares: the dynamic-smem opt-in, the post-launch error
// check, and the occupancy query the planner's GPU test compares against.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <string>
#include <utility>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::detail {

// Shared memory above 48 KB per CTA needs an explicit opt-in per kernel.
template <class KernelPtr>
Status prepare_smem(KernelPtr kernel, int smem_bytes) {
  if (smem_bytes <= 48 * 1024) return Status::success();
  return cuda_status(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes),
                     "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

inline Status after_launch(const char* name) { return cuda_status(cudaGetLastError(), name); }

// Programmatic dependent launch (sm_90+; the kernels that call arch::griddep_wait before any
// global access: k0, k5, shortk, skinny): a launch may start while the stream's previous kernel drains, its
// setup under that kernel's tail, and waits for it before touching memory. On by default where
// the device has it; $PIPEGEMM_PDL=0 turns it off (read at every launch: a test turns it on and
// off). Measured on the H200: docs/hopper.md, "Programmatic dependent launch".
inline bool pdl_enabled() {
  const char* e = std::getenv("PIPEGEMM_PDL");
  if (e && std::atoi(e) == 0) return false;
  return device_info().sm >= 90;
}
// Adds the attribute to cfg (attrs: cfg.attrs, room for one more) when pdl_enabled().
inline void add_pdl_attribute(cudaLaunchConfig_t& cfg) {
  if (!pdl_enabled()) return;
  cudaLaunchAttribute& a = cfg.attrs[cfg.numAttrs++] = cudaLaunchAttribute{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
}

// kernel(args...) on `grid` CTAs of `threads` (smem: dynamic bytes) in stream s: every launcher's one
// launch. dependent: programmatically dependent on the stream's previous kernel where pdl_enabled()
// -- only for kernels that call arch::griddep_wait before they touch global memory (k0, shortk,
// skinny; k5 adds its cluster and builds its own config). name: for errors.
template <class... Params, class... Args>
Status launch_kernel(void (*kernel)(Params...), dim3 grid, int threads, int smem, cudaStream_t s, const char* name,
                     bool dependent, Args&&... args) {
  cudaLaunchAttribute attrs[1];
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = size_t(smem);
  cfg.stream = s;
  cfg.attrs = attrs;
  if (dependent) add_pdl_attribute(cfg);
  const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
  if (e != cudaSuccess) return cuda_status(e, (std::string("cudaLaunchKernelEx(") + name + ")").c_str());
  return after_launch(name);
}

template <class KernelPtr>
Status occupancy_of(KernelPtr kernel, int threads, int smem_bytes, int* blocks, int* regs) {
  Status s = prepare_smem(kernel, smem_bytes);
  if (!s.ok()) return s;
  s = cuda_status(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, smem_bytes),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!s.ok()) return s;
  cudaFuncAttributes attr{};
  s = cuda_status(cudaFuncGetAttributes(&attr, kernel), "cudaFuncGetAttributes");
  if (s.ok() && regs) *regs = attr.numRegs;
  return s;
}

// The fields every kernel's registry entry fills alike: name, family, rung, types (from the
// table's types token), tile, mechanism (from the config).
template <class Types>
Variant kernel_entry(const char* name, const char* family, int rung, const TileConfig& tile, const Mechanism& mech) {
  Variant v;
  v.name = name;
  v.family = family;
  v.rung = rung;
  v.a_type = Types::a;
  v.b_type = Types::a;
  v.acc_type = Types::acc;
  v.d_type = Types::d;
  v.tile = tile;
  v.mech = mech;
  return v;
}

}  // namespace pipegemm::detail
