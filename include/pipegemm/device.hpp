// The live CUDA device, as far as this process can see one. No GPU is a normal state:
// `present` is false and `why_absent` says why (driver missing, no device, ...).
#pragma once

#include <cstddef>
#include <string>

namespace pipegemm {

struct DeviceInfo {
  bool present = false;
  std::string why_absent;
  int index = 0;
  std::string name;
  int sm = 0;                      // compute capability * 10 (90 for H100/H200)
  int sm_count = 0;
  int l2_bytes = 0;
  int smem_per_sm = 0;             // bytes usable by CTAs on one SM
  int smem_per_block_optin = 0;    // max dynamic + static smem one CTA may opt in to
  int smem_reserved_per_block = 0; // the runtime's per-CTA reservation (1 KB on sm_80+)
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 32;
  int sm_clock_khz = 0;            // cudaDevAttrClockRate (CUDA 13: no prop.clockRate)
  int mem_clock_khz = 0;
  int mem_bus_bits = 0;
};

// The caller's current device (cudaGetDevice), queried on first use of each device; cheap afterwards.
const DeviceInfo& device_info();

}  // namespace pipegemm
