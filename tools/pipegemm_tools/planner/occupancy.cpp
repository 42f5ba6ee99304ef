// Shared-memory budget and blocks per SM, by the rules cudaOccupancyMaxActiveBlocksPerMultiprocessor
// applies (cuda_occupancy.h, CUDA 13.0), so the GPU test can demand exact agreement:
//  - smem: footprint = round_up(dynamic + static + reserved 1 KB, 128 B) against the max carveout
//    (the default carveout preference lets the driver pick the largest);
//  - registers: regs/thread x 32 rounded up to 256 per warp (= regs rounded up to 8), each of
//    the 4 sub-partitions holding regs_per_sm/4; plus the per-CTA hardware check;
//  - warps: floor(max warps per SM / warps per CTA); blocks: the per-SM CTA limit;
//  - barriers (sm_90+ only): named barriers per CTA against 2 per CTA slot.
#include <algorithm>

#include "pipegemm_tools/planner.hpp"

namespace pipegemm::plan {
namespace {

int div_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int y) { return div_up(x, y) * y; }

}  // namespace

int ring_bytes_per_stage(const KernelDesc& k) {
  // B-resident: the ring carries A alone; B's slots are a constant beside it (extra_smem).
  int b = (k.bm * k.bk + (k.b_resident ? 0 : k.bn * k.bk)) * dtype_bytes(k.in);
  if (k.pipeline == PipelineKind::mbarrier_ring) b += 2 * 8;  // full + empty mbarrier, 8 B each
  return b;
}

int smem_bytes(const KernelDesc& k, int stages) {
  if (k.pipeline == PipelineKind::none) return k.extra_smem;
  return stages * ring_bytes_per_stage(k) + k.extra_smem;
}

Occupancy occupancy(const ArchSpec& a, int threads, int dynamic_smem, int regs, int static_smem,
                    int barriers) {
  Occupancy o;
  o.regs_known = regs > 0;
  if (threads <= 0 || threads > a.max_threads_per_block) {
    o.error = "a CTA of " + std::to_string(threads) + " threads (the limit is " +
              std::to_string(a.max_threads_per_block) + ")";
    return o;
  }
  const int warps = div_up(threads, a.warp_size);

  // Shared memory.
  o.smem_alloc = round_up(dynamic_smem + static_smem + a.smem_reserved_per_block, a.smem_alloc_granularity);
  if (dynamic_smem + static_smem > a.smem_per_block_optin) {
    o.error = std::to_string(dynamic_smem + static_smem) + " B of shared memory per CTA; sm_" +
              std::to_string(a.sm) + " allows at most " + std::to_string(a.smem_per_block_optin) +
              " B (" + std::to_string(a.smem_per_block_optin / 1024) + " KB, with opt-in)";
    return o;
  }
  o.by_smem = o.smem_alloc > 0 ? a.smem_per_sm / o.smem_alloc : INT_MAX;

  // Registers.
  if (regs > 0) {
    if (regs > a.max_regs_per_thread) {
      o.error = std::to_string(regs) + " registers per thread (the limit is " +
                std::to_string(a.max_regs_per_thread) + ")";
      return o;
    }
    o.regs_per_warp = round_up(regs * a.warp_size, a.reg_alloc_unit);
    const int per_cta = o.regs_per_warp * warps;
    const int assumed = o.regs_per_warp * round_up(warps, a.sub_partitions);  // hardware check
    if (per_cta > a.regs_per_block || assumed > a.regs_per_block) {
      o.error = std::to_string(regs) + " registers x " + std::to_string(threads) +
                " threads exceed the " + std::to_string(a.regs_per_block) + " registers of a CTA";
      return o;
    }
    const int warps_per_sub = (a.regs_per_sm / a.sub_partitions) / o.regs_per_warp;
    o.by_regs = warps_per_sub * a.sub_partitions / warps;
  }

  o.by_warps = a.max_warps_per_sm / warps;
  o.by_blocks = a.max_blocks_per_sm;
  if (a.sm >= 90 && barriers > 0) o.by_barriers = a.max_blocks_per_sm * a.barriers_per_block_slot / barriers;

  o.blocks = std::min({o.by_smem, o.by_regs, o.by_warps, o.by_blocks, o.by_barriers});
  struct { int v; const char* n; } lims[] = {{o.by_smem, "shared memory"}, {o.by_regs, "registers"},
                                             {o.by_warps, "warps"}, {o.by_blocks, "blocks/SM"},
                                             {o.by_barriers, "barriers"}};
  for (auto& l : lims)
    if (l.v == o.blocks) o.limiter += (o.limiter.empty() ? "" : " + ") + std::string(l.n);
  o.warps_per_sm = o.blocks * warps;
  o.occupancy = double(o.warps_per_sm) / a.max_warps_per_sm;
  return o;
}

int max_dynamic_smem_for_blocks(const ArchSpec& a, int blocks, int static_smem) {
  if (blocks <= 0) return 0;
  int footprint = (a.smem_per_sm / blocks) / a.smem_alloc_granularity * a.smem_alloc_granularity;
  int dyn = footprint - a.smem_reserved_per_block - static_smem;
  dyn = std::min(dyn, a.smem_per_block_optin - static_smem);
  return std::max(dyn, 0);
}

std::vector<StageRow> stage_table(const ArchSpec& a, const KernelDesc& k, int max_stages) {
  std::vector<StageRow> rows;
  if (k.pipeline == PipelineKind::none) return rows;
  const int limit = max_stages > 0 ? max_stages : 64;
  for (int s = 1; s <= limit; ++s) {
    StageRow r;
    r.stages = s;
    r.smem = smem_bytes(k, s);
    r.occ = occupancy(a, k.threads, r.smem, k.regs_per_thread, k.static_smem, k.barriers);
    if (!r.occ.error.empty()) break;  // the CTA no longer fits: the table ends here
    r.cliff = !rows.empty() && r.occ.blocks < rows.back().occ.blocks;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace pipegemm::plan
