// The GPU table (the planner's and auto's cost model's), and the live device laid over it.
//
// Sources:
//  - occupancy limits (smem per SM / per block with opt-in, 1 KB per-block reservation, 128-byte
//    smem granularity, 256-register warp allocation over 4 sub-partitions, threads / blocks /
//    warps per SM): CUDA C Programming Guide, "Technical Specifications per Compute Capability",
//    and the toolkit's cuda_occupancy.h (CUDA 13.0), which cudaOccupancy* follows;
//  - SM counts, boost clocks, DRAM bandwidth, L2, tensor TFLOPS: NVIDIA A100, GA102/GA104
//    (Ampere GeForce), Ada (AD102), Hopper (H100) whitepapers and the H200 / L40S datasheets.
//    Per-SM rates = datasheet dense TFLOPS / (SMs x the clock the datasheet used);
//  - mma.sync on sm_90: ~62% of the wgmma rate, as measured on our H200 (design.md: "mma.sync
//    reaches about 60-65% of Hopper's tensor peak");
//  - DRAM latency in SM cycles: a round figure; pointer-chase microbenchmarks (Chips and Cheese;
//    Luo et al., arXiv 2402.13499) put HBM GPUs at roughly 450-600 cycles; seed 004 gives ~300
//    for GA104. It only feeds the min-stages estimate, which prints it (override --latency).
#include <algorithm>
#include <cctype>

#include "pipegemm/introspect/arch.hpp"

namespace pipegemm::plan {
namespace {

constexpr int KB = 1024;

ArchSpec base(const char* key, const char* name, int sm) {
  ArchSpec a;
  a.key = key;
  a.name = name;
  a.sm = sm;
  a.source = "table";
  a.smem_reserved_per_block = 1 * KB;  // cudaDevAttrReservedSharedMemoryPerBlock, sm_80+
  a.smem_alloc_granularity = 128;      // cuda_occupancy.h: 128 B for major 8..12
  return a;
}

// Per-arch limits (programming guide table), shared by every GPU of that arch.
void limits_sm80(ArchSpec& a) {
  a.smem_per_sm = 164 * KB;
  a.smem_per_block_optin = 163 * KB;
  a.max_threads_per_sm = 2048;
  a.max_blocks_per_sm = 32;
  a.max_warps_per_sm = 64;
  a.barriers_per_block_slot = 2;
}
void limits_sm86_89(ArchSpec& a, int max_blocks) {
  a.smem_per_sm = 100 * KB;
  a.smem_per_block_optin = 99 * KB;
  a.max_threads_per_sm = 1536;
  a.max_blocks_per_sm = max_blocks;  // 16 on sm_86, 24 on sm_89
  a.max_warps_per_sm = 48;
  a.barriers_per_block_slot = 1;
}
void limits_sm90(ArchSpec& a) {
  a.smem_per_sm = 228 * KB;
  a.smem_per_block_optin = 227 * KB;
  a.max_threads_per_sm = 2048;
  a.max_blocks_per_sm = 32;
  a.max_warps_per_sm = 64;
  a.barriers_per_block_slot = 2;
}

std::vector<ArchSpec> build() {
  std::vector<ArchSpec> t;
  {  // A100: 312 TFLOPS fp16 dense = 108 SMs x 2048 x 1.41 GHz; 19.5 TFLOPS FFMA (64 FP32/SM)
    ArchSpec a = base("a100", "NVIDIA A100-SXM4-80GB", 80);
    limits_sm80(a);
    a.sm_count = 108; a.sm_clock_mhz = 1410; a.dram_gbps = 2039; a.l2_bytes = 40 * KB * KB;
    a.dram_latency_cycles = 500;
    a.rates = {2048, 2048, 4096, 0, 0, 128};
    a.notes = "A100 whitepaper; HBM2e 2039 GB/s (80 GB SXM4)";
    t.push_back(a);
  }
  {  // RTX 3070 (GA104): 81.3 TFLOPS fp16-acc dense = 46 x 1024 x 1.725 GHz; fp32-acc half rate
    ArchSpec a = base("rtx3070", "NVIDIA GeForce RTX 3070 (GA104)", 86);
    limits_sm86_89(a, 16);
    a.sm_count = 46; a.sm_clock_mhz = 1725; a.dram_gbps = 448; a.l2_bytes = 4 * KB * KB;
    a.dram_latency_cycles = 300;  // seed 004: "GA104 about 300 cycles"
    a.geforce_half_rate_f32acc = true;
    a.rates = {512, 1024, 2048, 0, 0, 256};
    a.notes = "Ampere GA102 whitepaper (RTX 3070 column); GDDR6 448 GB/s";
    t.push_back(a);
  }
  {  // RTX 4090 (AD102): 330 TFLOPS fp16-acc dense = 128 x 1024 x 2.52 GHz; fp32-acc half rate
    ArchSpec a = base("rtx4090", "NVIDIA GeForce RTX 4090 (AD102)", 89);
    limits_sm86_89(a, 24);
    a.sm_count = 128; a.sm_clock_mhz = 2520; a.dram_gbps = 1008; a.l2_bytes = 72 * KB * KB;
    a.dram_latency_cycles = 500;
    a.geforce_half_rate_f32acc = true;
    a.rates = {512, 1024, 2048, 0, 0, 256};
    a.notes = "Ada whitepaper (RTX 4090 column); GDDR6X 1008 GB/s";
    t.push_back(a);
  }
  {  // L40S (AD102): 362 TFLOPS fp16 dense, fp32 accumulation at full rate
    ArchSpec a = base("l40s", "NVIDIA L40S", 89);
    limits_sm86_89(a, 24);
    a.sm_count = 142; a.sm_clock_mhz = 2520; a.dram_gbps = 864; a.l2_bytes = 96 * KB * KB;
    a.dram_latency_cycles = 500;
    a.rates = {1024, 1024, 2048, 0, 0, 256};
    a.notes = "L40S datasheet; GDDR6 864 GB/s";
    t.push_back(a);
  }
  {  // H100 SXM5: 989 TFLOPS fp16 dense = 132 x 4096 x 1.83 GHz (wgmma)
    ArchSpec a = base("h100", "NVIDIA H100 SXM5", 90);
    limits_sm90(a);
    a.sm_count = 132; a.sm_clock_mhz = 1980; a.dram_gbps = 3352; a.l2_bytes = 50 * KB * KB;
    a.dram_latency_cycles = 500;
    a.rates = {2560, 2560, 5120, 4096, 8192, 256};
    a.notes = "Hopper whitepaper; HBM3 3352 GB/s; max SM clock 1980 MHz";
    t.push_back(a);
  }
  {  // H200 SXM: the H100 SM with HBM3e 4.8 TB/s
    ArchSpec a = base("h200", "NVIDIA H200 SXM", 90);
    limits_sm90(a);
    a.sm_count = 132; a.sm_clock_mhz = 1980; a.dram_gbps = 4800; a.l2_bytes = 50 * KB * KB;
    a.dram_latency_cycles = 500;
    a.rates = {2560, 2560, 5120, 4096, 8192, 256};
    a.notes = "H200 datasheet; HBM3e 4800 GB/s; SM as H100";
    t.push_back(a);
  }
  return t;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// The GPU an arch name stands for.
const char* default_gpu(int sm) {
  switch (sm) {
    case 80: return "a100";
    case 86: return "rtx3070";
    case 89: return "rtx4090";
    case 90: return "h200";
    default: return nullptr;
  }
}

}  // namespace

const std::vector<ArchSpec>& arch_table() {
  static const std::vector<ArchSpec> t = build();
  return t;
}

Status find_arch(std::string_view key_in, ArchSpec* out) {
  std::string k = lower(key_in);
  struct Alias { const char* from; const char* to; };
  static const Alias aliases[] = {{"ga104", "rtx3070"}, {"ampere", "a100"}, {"ada", "rtx4090"},
                                  {"ad102", "rtx4090"}, {"hopper", "h200"}, {"h100-sxm", "h100"},
                                  {"a100-sxm", "a100"}};
  for (const Alias& al : aliases)
    if (k == al.from) k = al.to;
  // "sm_90", "sm90", "sm_90a", "90", "9.0"
  std::string digits = k;
  if (digits.rfind("sm_", 0) == 0) digits = digits.substr(3);
  else if (digits.rfind("sm", 0) == 0) digits = digits.substr(2);
  if (!digits.empty() && digits.back() == 'a') digits.pop_back();
  if (digits.size() == 3 && digits[1] == '.') digits.erase(1, 1);
  if (digits.size() == 2 && std::isdigit(static_cast<unsigned char>(digits[0])) &&
      std::isdigit(static_cast<unsigned char>(digits[1]))) {
    const char* g = default_gpu(std::stoi(digits));
    if (g) k = g;
  }
  for (const ArchSpec& a : arch_table())
    if (a.key == k) {
      *out = a;
      return Status::success();
    }
  std::string known;
  for (const ArchSpec& a : arch_table()) known += (known.empty() ? "" : ", ") + a.key;
  return Status::error(StatusCode::invalid_argument,
                       "unknown arch '" + std::string(key_in) + "' (known: sm_80, sm_86, sm_89, sm_90, " +
                           known + ")");
}

DeviceInfo device_like(const ArchSpec& a, const std::string& name) {
  DeviceInfo d;
  d.present = true;
  d.name = name;
  d.sm = a.sm;
  d.sm_count = a.sm_count;
  d.l2_bytes = a.l2_bytes;
  d.smem_per_sm = a.smem_per_sm;
  d.smem_per_block_optin = a.smem_per_block_optin;
  d.smem_reserved_per_block = a.smem_reserved_per_block;
  d.regs_per_sm = a.regs_per_sm;
  d.regs_per_block = a.regs_per_block;
  d.max_threads_per_sm = a.max_threads_per_sm;
  d.max_blocks_per_sm = a.max_blocks_per_sm;
  d.sm_clock_khz = int(a.sm_clock_mhz * 1000);
  return d;
}

Status arch_from_device(const DeviceInfo& dev, ArchSpec* out) {
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  const char* g = default_gpu(dev.sm);
  if (!g)
    return Status::error(StatusCode::not_supported,
                         "the device is sm_" + std::to_string(dev.sm) +
                             ", which the planner's table does not know (sm_80, 86, 89, 90)");
  Status s = find_arch(g, out);
  if (!s.ok()) return s;
  ArchSpec& a = *out;
  a.key = "device" + std::to_string(dev.index);
  a.name = dev.name;
  a.source = "live device " + std::to_string(dev.index) + " (CUDA device attributes)";
  a.notes = "occupancy limits, SMs, clock, bandwidth from CUDA; math rates from the " +
            std::string(g) + " table entry";
  if (dev.sm_count) a.sm_count = dev.sm_count;
  if (dev.smem_per_sm) a.smem_per_sm = dev.smem_per_sm;
  if (dev.smem_per_block_optin) a.smem_per_block_optin = dev.smem_per_block_optin;
  a.smem_reserved_per_block = dev.smem_reserved_per_block;
  if (dev.regs_per_sm) a.regs_per_sm = dev.regs_per_sm;
  if (dev.regs_per_block) a.regs_per_block = dev.regs_per_block;
  if (dev.max_threads_per_sm) a.max_threads_per_sm = dev.max_threads_per_sm;
  if (dev.max_blocks_per_sm) a.max_blocks_per_sm = dev.max_blocks_per_sm;
  if (dev.warp_size) a.warp_size = dev.warp_size;
  a.max_warps_per_sm = a.max_threads_per_sm / a.warp_size;
  if (dev.sm_clock_khz) a.sm_clock_mhz = dev.sm_clock_khz / 1000.0;
  if (dev.mem_clock_khz && dev.mem_bus_bits)  // DDR: two transfers per memory clock
    a.dram_gbps = 2.0 * dev.mem_clock_khz * 1e3 * (dev.mem_bus_bits / 8.0) / 1e9;
  if (dev.l2_bytes) a.l2_bytes = dev.l2_bytes;
  return Status::success();
}

Waves waves_for(long long m, long long n, int bm, int bn, int blocks_per_sm, int sm_count) {
  Waves w;
  if (bm <= 0 || bn <= 0 || blocks_per_sm <= 0 || sm_count <= 0) return w;
  w.tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  w.slots = (long long)blocks_per_sm * sm_count;
  w.waves = (w.tiles + w.slots - 1) / w.slots;
  long long last = w.tiles - (w.waves - 1) * w.slots;
  w.last_wave_util = double(last) / double(w.slots);
  w.efficiency = double(w.tiles) / double(w.waves * w.slots);
  return w;
}

}  // namespace pipegemm::plan
