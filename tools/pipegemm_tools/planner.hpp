// The planner: the arithmetic of seeds 001 and 004, done before a kernel is written or run.
//
//   smem per stage count -> blocks per SM (CUDA's occupancy rules) -> cliffs where one more
//   stage costs a block; compute/load ratio -> LDG-register or cp.async (004's thresholds);
//   minimum stages = ceil(T_copy / T_compute) + 1 (001); for a problem shape, the registered
//   variants ranked by waves and last-wave utilization on the target GPU.
//
// Everything here is CPU arithmetic over an ArchSpec. An ArchSpec comes from the built-in table
// (find_arch) or from the live device (arch_from_device), which takes precedence when present.
#pragma once

#include <climits>
#include <string>
#include <string_view>
#include <vector>

#include "pipegemm/introspect/arch.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::plan {

// MathRates, ArchSpec, the GPU table and Waves: pipegemm/introspect/arch.hpp (auto's cost model reads them too).
// PipelineKind and MmaKind: pipegemm/introspect/mechanism.hpp, the words every kernel config uses.

// What the planner needs of a kernel: a registered variant (kernel_from_variant) or a tile the
// user describes.
struct KernelDesc {
  std::string label;        // variant name, or "custom"
  std::string family;
  int bm = 0, bn = 0, bk = 0, stages = 0, threads = 0;
  DType in = DType::f16, acc = DType::f32;
  PipelineKind pipeline = PipelineKind::cp_async_ring;
  MmaKind mma = MmaKind::mma_sync;
  bool pingpong = false;    // k5: the two consumers on alternate tiles of BM rows (Mechanism::pingpong)
  bool b_resident = false;  // k5: B loaded once and kept; a k_tile's copy is A's alone (Mechanism::b_resident)
  bool swap_ab = false;     // skinny: BN (the streamed rows) on the MMA's M side, BM on its N side
  int load_bytes = 16;      // a thread's global load (Mechanism::load_bytes): < 16, element loads (shortk's fill)
  int warps_m = 0, warps_n = 0;  // mma.sync: the warp layout (Mechanism::warps_m/n; 0 = unknown)
  int max_cluster = 1;      // k5: CTAs per cluster, multicasting B (Mechanism::max_cluster)
  bool cluster_n = false;   // k5: ... side by side along N, multicasting A (Mechanism::cluster_n)
  int regs_per_thread = 0;  // 0 = unknown (then registers are not a limit, and the plan says so)
  std::string regs_source;  // "--regs", "cudaFuncGetAttributes", "cuobjdump -res-usage ..."
  int static_smem = 0;      // __shared__ arrays, bytes
  int extra_smem = 0;       // dynamic smem beyond the ring (epilogue staging, padding), bytes
  int barriers = 1;         // named barriers per CTA (counts only on sm_90+)
};
KernelDesc kernel_from_variant(const Variant& v);

// Shared memory of the ring at `stages` slots: stages * (BM*BK + BN*BK) * sizeof(T) (B-resident:
// BM*BK, B's slots being in extra_smem), plus 2 x 8-byte mbarriers (full, empty) per stage for the
// mbarrier ring, plus extra_smem. So a B-resident kernel's stage counts vary its ring of A with
// B's slots -- its K <= max_k -- held (the 4-stage _b_resident sizes them by its stages, 256 / BK).
int ring_bytes_per_stage(const KernelDesc& k);
int smem_bytes(const KernelDesc& k, int stages);

// Can a kernel of this tile be built and launched on `a`? The rules the kernels static_assert
// (kernels/common/smem_tiles.cuh for the 16-byte copy paths of k1..k4, k4_multistage/kernel.cuh
// for the cp.async ring, sm90/gemm.cuh for TMA + wgmma) and the arch's limits, one
// place for both. The first broken rule is the message, naming it. Every registered variant passes.
Status check_tile(const KernelDesc& k, const ArchSpec& a);

// Blocks per SM as cudaOccupancyMaxActiveBlocksPerMultiprocessor computes it.
struct Occupancy {
  int blocks = 0;            // resident CTAs per SM
  int by_smem = INT_MAX, by_regs = INT_MAX, by_warps = INT_MAX, by_blocks = INT_MAX,
      by_barriers = INT_MAX;
  std::string limiter;       // "shared memory", "registers", "warps", "blocks/SM", "barriers"
  int smem_alloc = 0;        // per-CTA smem footprint: dynamic + static + reserved, rounded up
  int regs_per_warp = 0;     // allocated
  bool regs_known = false;
  int warps_per_sm = 0;
  double occupancy = 0;      // resident warps / max warps
  std::string error;         // non-empty: this CTA cannot launch at all (why)
};
Occupancy occupancy(const ArchSpec& a, int threads, int dynamic_smem, int regs_per_thread,
                    int static_smem = 0, int barriers = 1);

// The largest dynamic smem per CTA that still keeps `blocks` CTAs on one SM (0 if none).
int max_dynamic_smem_for_blocks(const ArchSpec& a, int blocks, int static_smem = 0);

// One row per stage count, 1 .. the most that fits one CTA.
struct StageRow {
  int stages = 0;
  int smem = 0;              // dynamic bytes
  Occupancy occ;
  bool cliff = false;        // fewer blocks than with one stage less
};
std::vector<StageRow> stage_table(const ArchSpec& a, const KernelDesc& k, int max_stages = 0);

// 004: FLOP per byte loaded for one k_tile: 2*BM*BN*BK / ((BM*BK + BK*BN) * sizeof(T)).
double compute_load_ratio(int bm, int bn, int bk, int dtype_bytes);
struct VariantAdvice {
  std::string choice;  // "cp.async", "benchmark both (LDG-register and cp.async)", "pipelining may not pay"
  std::string reason;
};
// active_warps: resident warps per SM (004: ratio > 20 needs >= 8 of them to go unpipelined).
VariantAdvice recommend_variant(double ratio, int active_warps);

// 001: ceil(T_copy / T_compute) + 1. Both must be positive.
int minimum_stages(long long copy_cycles, long long compute_cycles);

struct StageEstimate {
  double t_copy = 0, t_compute = 0;  // cycles per k_tile for one CTA
  double transfer = 0;               // the bandwidth part of t_copy
  bool copy_given = false, compute_given = false;
  int min_stages = 0;                // with T_copy as above (estimated: the DRAM worst case)
  int min_stages_latency_only = 0;   // estimated T_copy without the transfer: operands from L2,
                                     // bandwidth not binding (the lower end); 0 when T_copy given
  bool bandwidth_bound = false;      // the transfer alone exceeds T_compute
  std::vector<std::string> assumptions;
};
// t_copy / t_compute > 0 override the estimates. blocks_per_sm shares the SM among CTAs.
StageEstimate estimate_stages(const ArchSpec& a, const KernelDesc& k, int blocks_per_sm,
                              double t_copy = 0, double t_compute = 0, int latency_cycles = 0);

// Where a k_tile's operand bytes go, per MAC -- the budget that separates tiles of the same math:
// the MMAs read their operands from shared memory (wgmma: each m64 block's instruction reads A
// 64 x BK and B BN x BK; mma.sync: each warp's ldmatrix reads its warp tile's rows of A and
// columns of B), and the copies write them there, which is also their L2 -> SM traffic. An SM's
// shared memory moves kSmemBytesPerClock; at the MMA's peak rate a tile needs
// smem_per_clk_at_peak of it (128x256 wgmma: 128, all of it; ping-pong's 64x256: 160).
constexpr int kSmemBytesPerClock = 128;  // 32 banks x 4 bytes per clock per SM (sm_80 .. sm_90)
struct ByteBudget {
  bool known = false;
  std::string why_unknown;        // e.g. no shared-memory operands, or the warp layout unknown
  std::string reads_formula;      // the reads in words, e.g. "4 m64 blocks x (64 + 192) rows"
  double read_bytes = 0;          // MMA operand reads from smem per k_tile of the CTA
  double write_bytes = 0;         // copies into smem per k_tile (the L2 -> SM bytes)
  double macs = 0;                // per k_tile: BM * BN * BK
  double smem_per_kmac = 0;       // (reads + writes) per 1000 MACs
  double smem_per_clk_at_peak = 0;  // at the MMA's peak rate, bytes per clock per SM
  double l2_per_mac = 0;          // write_bytes / macs
  double l2_per_mac_cluster = 0;  // with B multicast over a 2-CTA cluster (0: the kernel has none)
};
ByteBudget byte_budget(const ArchSpec& a, const KernelDesc& k);

struct RankedVariant {
  const Variant* v = nullptr;
  KernelDesc kernel;
  Occupancy occ;
  Waves waves;
};
struct Ranking {
  std::vector<RankedVariant> ranked;                          // best first
  std::vector<std::pair<const Variant*, std::string>> rejected;  // with a one-line reason
};
// Every registered variant for an m x n x k problem on arch a, checked with check_variant().
// `types` (A, B, acc, D) is the problem's; null = each variant's own (only shape and arch count).
// regs_for(v) supplies registers per thread (0 = unknown); may be null.
using RegsLookup = int (*)(const Variant& v, const ArchSpec& a, std::string* source);
Ranking rank_variants(const ArchSpec& a, long long m, long long n, long long k, const Problem* types,
                      RegsLookup regs_for);

// Registers per thread of a registered variant from `cuobjdump -res-usage` of `binary` (the
// running executable by default; cuobjdump found and run by pipegemm_tools/toolchain.hpp), for the cubin that would run on sm (sm_90a for sm_90; the
// newest same-major cubin otherwise). 0 when unavailable; *why says why.
struct ResUsage {
  int regs = 0, static_smem = 0;
  std::string cubin_arch;  // "sm_90a"
  int matches = 0;         // distinct kernels in that cubin matching the symbol
};
bool res_usage_from_cuobjdump(const std::string& symbol, int sm, ResUsage* out, std::string* why,
                              const std::string& binary = "/proc/self/exe");
// The parsing half, on `cuobjdump -res-usage` text. Several kernels matching `symbol` (e.g. two
// template instances) give the largest REG (the conservative one for occupancy) and say so.
// On sm_90+ cubins SHARED includes the driver's 1 KB per-CTA reservation; it is taken off.
bool res_usage_from_text(const std::string& text, const std::string& symbol, int sm, ResUsage* out,
                         std::string* why);

}  // namespace pipegemm::plan
