// The plan laid out, continued: compute/load ratio, minimum stages, the ranking for a shape; and
// the GPU table of `plan --archs`.
#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::plan {

using report::Cell;
using report::fixed;
using report::kib;
using report::percent;
using report::Show;
using report::Value;

namespace {
std::string str(long long x) { return std::to_string(x); }
}  // namespace

namespace detail {

void ratio_and_stages(report::Document& d, const PlanReport& p) {
  const KernelDesc& k = p.kernel;
  const StageEstimate& est = p.estimate;
  report::Section& c = d.section("Compute/load ratio (004): 2*BM*BN*BK / ((BM*BK + BK*BN) * " + str(dtype_bytes(k.in)) +
                                 " B) = " + fixed(p.ratio, 1) + " FLOP/B");
  c.note("  -> " + p.advice.choice + ": " + p.advice.reason);
  if (p.arch.sm >= 90 && k.pipeline != PipelineKind::mbarrier_ring)
    c.note("  (sm_90: the TMA + mbarrier ring with wgmma is the Hopper alternative to both)");
  c.data("compute_load.ratio", p.ratio).data("compute_load.recommendation", p.advice.choice);
  c.data("compute_load.reason", p.advice.reason);

  const std::string copy = fixed(est.t_copy, 0), compute = fixed(est.t_compute, 0);
  const std::string rule = "Minimum stages (001): ceil(T_copy / T_compute) + 1 = ";
  const int lo = est.min_stages_latency_only;
  report::Section& s = d.section(lo > 0 ? rule + str(lo) + " .. " + str(est.min_stages)
                                        : rule + "ceil(" + copy + " / " + compute + ") + 1 = " + str(est.min_stages));
  if (lo > 0) {
    s.note("  " + str(lo) + " = ceil(" + fixed(est.t_copy - est.transfer, 0) + " / " + compute +
           ") + 1 with T_copy = the latency alone (operands from L2, bandwidth not binding)");
    s.note("  " + str(est.min_stages) + " = ceil(" + copy + " / " + compute +
           ") + 1 with T_copy = latency + the k_tile's DRAM transfer (worst case)");
  }
  Value assumptions = Value::array();
  for (const std::string& a : est.assumptions) s.note("  " + a), assumptions.push(a);
  const bool pipelined = k.pipeline != PipelineKind::none && k.pipeline != PipelineKind::single;
  if (pipelined && est.min_stages > 0)
    s.note("  this kernel has " + str(k.stages) + " stages: " +
           (k.stages >= est.min_stages ? "enough to hide T_copy by this estimate"
            : k.stages >= lo && lo > 0 ? "enough while operands come from L2, fewer than the DRAM worst case"
                                       : "fewer than the estimate: the MMA may wait on copies"));
  s.data("min_stages.t_copy", est.t_copy).data("min_stages.t_compute", est.t_compute);
  s.data("min_stages.min_stages", est.min_stages).data("min_stages.min_stages_latency_only", lo);
  s.data("min_stages.bandwidth_bound", est.bandwidth_bound).data("min_stages.assumptions", assumptions);
  s.data("min_stages.kernel_stages", k.stages);
}

// Where the operand bytes go per MAC (plan::byte_budget), against the SM's shared-memory bandwidth.
void byte_budget_section(report::Document& d, const PlanReport& p) {
  const ByteBudget b = byte_budget(p.arch, p.kernel);
  if (!b.known) return;
  const KernelDesc& k = p.kernel;
  const std::string per = " x " + str(k.bk) + " x " + str(dtype_bytes(k.in)) + " B = ";
  report::Section& s = d.section("Operand bytes per MAC: " + fixed(b.smem_per_kmac, 1) + " B of shared memory per 1000 MACs, " +
                                 fixed(b.smem_per_clk_at_peak, 0) + " of the SM's " + str(kSmemBytesPerClock) +
                                 " B/clk at the MMA peak");
  s.note("  MMA operand reads   " + b.reads_formula + per + kib(int(b.read_bytes)) + " per k_tile");
  s.note("  copies into smem    (" + str(k.bm) + (k.b_resident ? "" : " + " + str(k.bn)) + ") rows" + per +
         kib(int(b.write_bytes)) + " per k_tile (also the L2 -> SM bytes)" + (k.b_resident ? "; B loaded once" : ""));
  s.note("  MACs                " + str(k.bm) + " x " + str(k.bn) + " x " + str(k.bk) + " = " + fixed(b.macs / 1e6, 2) +
         " M per k_tile");
  const std::string shared = k.cluster_n ? "A (along N)" : "B";
  s.note("  L2 -> SM            " + fixed(b.l2_per_mac, 4) + " B/MAC" +
         (b.l2_per_mac_cluster > 0 ? "; " + fixed(b.l2_per_mac_cluster, 4) + " with 2-CTA clusters multicasting " + shared
                                   : ""));
  // A count, not a proven bound: k5's ping-pong (160 by it) measured 82-86% of the 128x256 tile, as the
  // count says, but its 128x128 tile (also 160) 86-100% (docs/planner.md 4b).
  const double use = b.smem_per_clk_at_peak / kSmemBytesPerClock;
  if (use > 1.0)
    s.note("  -> " + fixed(use, 2) + "x the SM's shared-memory bandwidth at the MMA peak by this count (" +
           percent(1 / use) + " of the peak if every counted byte costs its share of the 128 B/clk); a tile that " +
           "reads each operand for more MACs spends fewer bytes");
  else if (use > 0.9)
    s.note("  -> within 10% of the SM's shared-memory bandwidth at the MMA peak by this count");
  s.data("byte_budget.read_bytes", b.read_bytes).data("byte_budget.write_bytes", b.write_bytes);
  s.data("byte_budget.macs", b.macs).data("byte_budget.smem_per_kmac", b.smem_per_kmac);
  s.data("byte_budget.smem_per_clk_at_peak", b.smem_per_clk_at_peak).data("byte_budget.smem_per_clk", kSmemBytesPerClock);
  s.data("byte_budget.l2_per_mac", b.l2_per_mac).data("byte_budget.l2_per_mac_cluster", b.l2_per_mac_cluster);
}

void ranking(report::Document& d, const PlanReport& p) {
  const ArchSpec& a = p.arch;
  const KernelDesc& k = p.kernel;
  const Waves& w = p.waves;
  report::Section& s = d.section("Problem " + str(p.m) + "x" + str(p.n) + "x" + str(p.k) + " on " + a.name + ": " +
                                 str(w.tiles) + " tiles of " + str(k.bm) + "x" + str(k.bn) + " over " + str(w.slots) +
                                 " slots (" + str(p.occ.blocks) + " blocks x " + str(a.sm_count) + " SMs) = " +
                                 str(w.waves) + " wave(s), last wave " + percent(w.last_wave_util) + " busy");
  s.data("problem.m", p.m).data("problem.n", p.n).data("problem.k", p.k);
  s.data("waves.tiles", w.tiles).data("waves.slots", w.slots).data("waves.waves", w.waves);
  s.data("waves.last_wave_util", w.last_wave_util).data("waves.efficiency", w.efficiency);
  report::Table& t = s.table(
      "ranking", "Registered variants that can run it, best first (fewest waves, fullest last wave):",
      {{"", "#", Show::text}, {"variant", "variant"}, {"", "tile/stages", Show::text}, {"blocks_per_sm", "blocks/SM"},
       {"limited_by", "limited by"}, {"tiles", "tiles"}, {"waves", "waves"}, {"last_wave_util", "last wave"},
       {"efficiency", "efficiency"}, {"regs_per_thread", "", Show::data}, {"regs_source", "", Show::data}});
  bool unknown = false;
  int i = 0;
  for (const RankedVariant& r : p.ranking.ranked) {
    const TileConfig& tc = r.v->tile;
    unknown |= !r.occ.regs_known;
    t.add({report::text_cell(str(++i)), r.v->name,
           report::text_cell(str(tc.bm) + "x" + str(tc.bn) + "x" + str(tc.bk) + "/" + str(tc.stages)),
           Cell(r.occ.blocks, str(r.occ.blocks) + (r.occ.regs_known ? "" : "?")), r.occ.limiter, r.waves.tiles,
           r.waves.waves, Cell(r.waves.last_wave_util, percent(r.waves.last_wave_util)),
           Cell(r.waves.efficiency, percent(r.waves.efficiency)), r.kernel.regs_per_thread, r.kernel.regs_source});
  }
  if (unknown) t.notes.push_back("? = registers unknown: blocks/SM are an upper bound.");
  report::Table& rej = s.table("rejected", "", {{"variant", ""}, {"reason", ""}});
  rej.show = Show::data;
  // Text: one line per rejected kernel of these types; the peers and the other types summarized.
  int peers = 0, other_types = 0;
  std::vector<std::string> lines;
  for (auto& [v, why] : p.ranking.rejected) {
    rej.add({v->name, why});
    if (v->is_peer()) ++peers;
    else if (why.rfind("computes ", 0) == 0) ++other_types;
    else lines.push_back("  " + v->name + ": " + why);
  }
  if (!lines.empty()) s.note("Rejected:");
  for (auto& l : lines) s.note(l);
  if (other_types)
    s.note("Not these types (" + std::string(to_string(k.in)) + " in, " + to_string(k.acc) + " acc): " +
           str(other_types) + " variant(s); --json lists each with its reason.");
  if (peers) s.note("cuBLAS peers (" + str(peers) + "): pick their own tile at run time, nothing to plan.");
}

}  // namespace detail

report::Document arch_table_document() {
  report::Document d;
  report::Section& s = d.section();
  report::Table& t = s.table(
      "archs", "",
      {{"key", "key"}, {"", "arch", Show::text}, {"name", "GPU"}, {"sm", "", Show::data}, {"sm_count", "SMs"},
       {"smem_per_sm", "smem/SM"}, {"smem_per_block", "", Show::data}, {"smem_per_block_optin", "smem/block"},
       {"smem_reserved_per_block", "reserved"}, {"smem_alloc_granularity", "", Show::data},
       {"regs_per_sm", "regs/SM"}, {"regs_per_block", "", Show::data}, {"max_regs_per_thread", "", Show::data},
       {"reg_alloc_unit", "", Show::data}, {"max_threads_per_block", "", Show::data},
       {"max_threads_per_sm", "threads/SM"}, {"max_warps_per_sm", "warps/SM"}, {"max_blocks_per_sm", "blocks/SM"},
       {"sm_clock_mhz", "MHz"}, {"dram_gbps", "GB/s"}, {"dram_latency_cycles", "", Show::data},
       {"notes", "", Show::data}});
  for (const ArchSpec& a : arch_table())
    t.add({a.key, report::text_cell("sm_" + str(a.sm)), a.name, a.sm, a.sm_count, Cell(a.smem_per_sm, kib(a.smem_per_sm)),
           a.smem_per_block, Cell(a.smem_per_block_optin, kib(a.smem_per_block_optin)),
           Cell(a.smem_reserved_per_block, kib(a.smem_reserved_per_block)), a.smem_alloc_granularity, a.regs_per_sm,
           a.regs_per_block, a.max_regs_per_thread, a.reg_alloc_unit, a.max_threads_per_block, a.max_threads_per_sm,
           a.max_warps_per_sm, a.max_blocks_per_sm, Cell(a.sm_clock_mhz, fixed(a.sm_clock_mhz, 0)),
           Cell(a.dram_gbps, fixed(a.dram_gbps, 0)), a.dram_latency_cycles, a.notes});
  s.note("smem allocated in 128 B units; registers per warp in 256-register units (per-thread count rounded up to 8), "
         "over 4 sub-partitions; <= 255 registers/thread.");
  s.note("Names: sm_80 = a100, sm_86 = rtx3070 (GA104), sm_89 = rtx4090, sm_90 = h200.");
  return d;
}

}  // namespace pipegemm::plan
