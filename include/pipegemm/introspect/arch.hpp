// What pipegemm knows of a GPU before it runs anything: occupancy limits, SMs, clock, DRAM
// bandwidth and per-SM math rates (the built-in table, or the live device laid over it), and the
// wave quantization of a problem over it. The planner (pipegemm_tools) and auto's cost model
// (pipegemm/introspect/dispatch.hpp) read the same table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipegemm/device.hpp"
#include "pipegemm/pipegemm.hpp"

namespace pipegemm::plan {

// Per-SM math rate, FLOP per SM clock, dense (no sparsity). 0 = the GPU has no such path.
struct MathRates {
  int mma_f16_f32acc = 0;  // mma.sync fp16/bf16 in, fp32 accumulation
  int mma_f16_f16acc = 0;  // mma.sync fp16 in, fp16 accumulation
  int mma_i8 = 0;          // mma.sync int8 (ops)
  int wgmma_f16 = 0;       // wgmma fp16/bf16 (sm_90a)
  int wgmma_i8 = 0;
  int ffma_f32 = 0;        // CUDA cores, 2 FLOP per FFMA
};

// One GPU's limits. Occupancy fields follow the CUDA occupancy calculator (cuda_occupancy.h);
// the throughput fields feed only the min-stages estimate.
struct ArchSpec {
  std::string key;          // "h200", "a100", ...
  std::string name;         // "NVIDIA H200 SXM"
  int sm = 0;               // compute capability * 10
  std::string source;       // "table" or "live device (CUDA)"
  int sm_count = 0;
  int smem_per_sm = 0;               // max carveout, bytes
  int smem_per_block = 48 * 1024;    // without opt-in
  int smem_per_block_optin = 0;      // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int smem_reserved_per_block = 0;   // runtime reservation per CTA (1 KB on sm_80+)
  int smem_alloc_granularity = 128;  // bytes
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int reg_alloc_unit = 256;          // registers per warp are allocated in these units
  int sub_partitions = 4;            // registers are split evenly over the SM's 4 schedulers
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_warps_per_sm = 0;
  int warp_size = 32;
  int barriers_per_block_slot = 2;   // named barriers per resident-CTA slot (Hopper rule)
  double sm_clock_mhz = 0;           // max boost (table) or cudaDevAttrClockRate (live)
  double dram_gbps = 0;              // peak DRAM bandwidth, GB/s
  int dram_latency_cycles = 0;       // a k_tile's first byte, DRAM to SM, in SM cycles (estimate)
  int l2_bytes = 0;
  bool geforce_half_rate_f32acc = false;  // GeForce parts: fp32-accumulate mma at half rate
  MathRates rates;
  std::string notes;                 // where the numbers come from
};

// The built-in table: at least sm_80 (A100), sm_86 (GA104), sm_89 (Ada), sm_90 (H100, H200).
const std::vector<ArchSpec>& arch_table();
// Looks up "sm_90", "sm90", "90", "9.0" (the default GPU of that arch) or a GPU key/alias
// ("h200", "H100", "a100", "rtx3070", "ga104", "rtx4090", "l40s"). Error lists the known keys.
Status find_arch(std::string_view key, ArchSpec* out);
// The live device's limits over the table entry of its arch (throughputs stay from the table).
// Fails when there is no device or its arch is not in the table.
Status arch_from_device(const DeviceInfo& dev, ArchSpec* out);
// The device CUDA would describe for a table entry, named `name` (a tune table's GPU): auto's
// choice without that GPU (tests, `tune --replay`).
DeviceInfo device_like(const ArchSpec& a, const std::string& name);

// Wave quantization of a problem over the GPU.
struct Waves {
  long long tiles = 0, slots = 0, waves = 0;
  double last_wave_util = 0;  // busy fraction of the last wave's slots
  double efficiency = 0;      // tiles / (waves * slots)
};
Waves waves_for(long long m, long long n, int bm, int bn, int blocks_per_sm, int sm_count);

}  // namespace pipegemm::plan
