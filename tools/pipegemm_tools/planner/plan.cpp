// Compute/load ratio -> variant (004), minimum stages (001) and its estimate, waves for a shape,
// and the registered variants ranked for a problem.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pipegemm_tools/planner.hpp"

namespace pipegemm::plan {
namespace {

std::string fmt(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

// Per-SM rate (FLOP/clk) for the kernel's instruction and types; *what names it.
double math_rate(const ArchSpec& a, const KernelDesc& k, std::string* what) {
  const MathRates& r = a.rates;
  const bool i8 = k.in == DType::i8;
  if (k.mma == MmaKind::ffma || k.in == DType::f32) {
    *what = "FFMA fp32 on CUDA cores";
    return r.ffma_f32;
  }
  if (k.mma == MmaKind::wgmma) {
    if ((i8 ? r.wgmma_i8 : r.wgmma_f16) > 0) {
      *what = std::string("wgmma ") + to_string(k.in);
      return i8 ? r.wgmma_i8 : r.wgmma_f16;
    }
    *what = std::string("mma.sync ") + to_string(k.in) + " (sm_" + std::to_string(a.sm) + " has no wgmma)";
  } else {
    *what = std::string("mma.sync ") + to_string(k.in);
  }
  if (i8) return r.mma_i8;
  if (k.acc == DType::f16) {
    *what += " fp16-acc";
    return r.mma_f16_f16acc;
  }
  *what += a.geforce_half_rate_f32acc ? " fp32-acc (half rate on GeForce)" : " fp32-acc";
  return r.mma_f16_f32acc;
}

}  // namespace

KernelDesc kernel_from_variant(const Variant& v) {
  KernelDesc k;
  k.label = v.name;
  k.family = v.family;
  k.bm = v.tile.bm; k.bn = v.tile.bn; k.bk = v.tile.bk;
  k.stages = v.tile.stages;
  k.threads = v.tile.threads;
  k.in = v.a_type;
  k.acc = v.acc_type;
  k.pipeline = v.mech.pipeline;
  k.mma = v.mech.mma;
  k.pingpong = v.mech.pingpong;
  k.b_resident = v.mech.b_resident;
  k.swap_ab = v.mech.swap_ab;
  if (v.mech.load_bytes > 0) k.load_bytes = v.mech.load_bytes;
  k.warps_m = v.mech.warps_m;
  k.warps_n = v.mech.warps_n;
  k.max_cluster = v.mech.max_cluster;
  k.cluster_n = v.mech.cluster_n;
  // The registered smem is authoritative at the kernel's own stage count; whatever it holds
  // beyond the ring (epilogue staging, alignment) is carried as a constant to other counts.
  // A kernel's static __shared__ array (smem_static) is static_smem, counted once: cuobjdump's
  // reading of it, where taken, replaces this value rather than adding to it.
  k.extra_smem = v.tile.dynamic_smem() - (k.pipeline == PipelineKind::none ? 0 : k.stages * ring_bytes_per_stage(k));
  if (v.tile.smem_static) k.static_smem = v.tile.smem_bytes;
  return k;
}

ByteBudget byte_budget(const ArchSpec& a, const KernelDesc& k) {
  ByteBudget b;
  const bool smem_operands = k.pipeline != PipelineKind::none && !k.swap_ab &&
                             (k.mma == MmaKind::wgmma || k.mma == MmaKind::mma_sync);
  if (!smem_operands) {
    b.why_unknown = "its MMAs do not read their operands from shared memory";
    return b;
  }
  const double eb = dtype_bytes(k.in), bk = k.bk;
  if (k.mma == MmaKind::wgmma) {
    const int blocks = k.bm / 64;  // one wgmma m64nBN per block and K step
    b.read_bytes = blocks * (64.0 + k.bn) * bk * eb;
    b.reads_formula = std::to_string(blocks) + " m64 block(s) x (64 + " + std::to_string(k.bn) + ") rows";
  } else {
    if (k.warps_m <= 0 || k.warps_n <= 0) {
      b.why_unknown = "its warp layout is not known";
      return b;
    }
    // Each warp reads its BM / warps_m rows of A and BN / warps_n columns of B.
    b.read_bytes = (double(k.bm) * k.warps_n + double(k.bn) * k.warps_m) * bk * eb;
    b.reads_formula = "(" + std::to_string(k.bm) + " x " + std::to_string(k.warps_n) + " + " + std::to_string(k.bn) +
                      " x " + std::to_string(k.warps_m) + ") rows (" + std::to_string(k.warps_m) + "x" +
                      std::to_string(k.warps_n) + " warps)";
  }
  // B-resident: a k_tile copies A alone (B was loaded once).
  b.write_bytes = (k.bm + (k.b_resident ? 0.0 : k.bn)) * bk * eb;
  b.macs = double(k.bm) * k.bn * bk;
  b.smem_per_kmac = 1000.0 * (b.read_bytes + b.write_bytes) / b.macs;
  std::string what;
  b.smem_per_clk_at_peak = (b.read_bytes + b.write_bytes) / b.macs * math_rate(a, k, &what) / 2;
  b.l2_per_mac = b.write_bytes / b.macs;
  if (k.max_cluster >= 2 && !k.b_resident)  // the shared operand's half: B's, or A's (clusters along N)
    b.l2_per_mac_cluster = (k.cluster_n ? k.bm / 2.0 + k.bn : k.bm + k.bn / 2.0) * bk * eb / b.macs;
  b.known = true;
  return b;
}

double compute_load_ratio(int bm, int bn, int bk, int dtype_bytes) {
  return 2.0 * bm * bn * bk / (double(bm * bk + bk * bn) * dtype_bytes);
}

VariantAdvice recommend_variant(double ratio, int active_warps) {
  const std::string r = fmt(ratio, 1);
  if (ratio < 5)
    return {"cp.async",
            "ratio " + r + " < 5: the k_tile is load-heavy; cp.async (LDGSTS) moves it without "
            "staging registers (004, GA104 IGEMM: cp.async +35%, LDG-register +18%)"};
  if (ratio <= 20)
    return {"benchmark both",
            "5 <= ratio " + r + " <= 20: 004 measured +5-15% either way; build LDG-register and "
            "cp.async and keep the faster (cp.async is the safer default)"};
  if (active_warps > 0 && active_warps < 8)
    return {"pipeline anyway",
            "ratio " + r + " > 20, but only " + std::to_string(active_warps) +
                " warps/SM are resident (< 8): too few to hide DRAM latency by interleaving, "
                "which is 004's condition for skipping the pipeline"};
  return {"pipelining may not pay",
          "ratio " + r + " > 20: compute dominates each k_tile" +
              (active_warps > 0 ? " and " + std::to_string(active_warps) + " warps/SM (>= 8) interleave"
                                : std::string(" (if >= 8 warps/SM are resident)")) +
              "; 004 measured 0-5% or a loss from pipelining"};
}

int minimum_stages(long long copy_cycles, long long compute_cycles) {
  if (copy_cycles <= 0 || compute_cycles <= 0) return 0;
  return int((copy_cycles + compute_cycles - 1) / compute_cycles) + 1;
}

StageEstimate estimate_stages(const ArchSpec& a, const KernelDesc& k, int blocks_per_sm,
                              double t_copy, double t_compute, int latency_cycles) {
  StageEstimate e;
  const int B = std::max(blocks_per_sm, 1);
  const double flops = 2.0 * k.bm * k.bn * k.bk;
  // What a k_tile copies in: its A and B tiles, or (B resident) A's alone.
  const double bytes = double(k.bm * k.bk + (k.b_resident ? 0 : k.bn * k.bk)) * dtype_bytes(k.in);
  const std::string ktile = std::to_string(k.bm) + "x" + std::to_string(k.bn) + "x" + std::to_string(k.bk);
  if (t_compute > 0) {
    e.t_compute = t_compute;
    e.compute_given = true;
    e.assumptions.push_back("T_compute = " + fmt(t_compute, 0) + " cycles (given)");
  } else {
    std::string what;
    double rate = math_rate(a, k, &what);
    e.t_compute = rate > 0 ? flops * B / rate : 0;
    e.assumptions.push_back("T_compute = 2*" + ktile + " = " + fmt(flops, 0) + " FLOP at " + what +
                            " " + fmt(rate, 0) + " FLOP/clk/SM shared by " + std::to_string(B) +
                            " CTA(s)/SM = " + fmt(e.t_compute, 0) + " cycles");
  }
  if (t_copy > 0) {
    e.t_copy = t_copy;
    e.copy_given = true;
    e.assumptions.push_back("T_copy = " + fmt(t_copy, 0) + " cycles (given)");
  } else {
    const int lat = latency_cycles > 0 ? latency_cycles : a.dram_latency_cycles;
    const double bw_per_sm_clk = a.dram_gbps * 1e9 / (a.sm_count * a.sm_clock_mhz * 1e6);
    e.transfer = bytes * B / bw_per_sm_clk;
    e.t_copy = lat + e.transfer;
    e.assumptions.push_back("T_copy = DRAM latency " + std::to_string(lat) + " cycles" +
                            (latency_cycles > 0 ? " (given)" : " (table estimate)") + " + k_tile " +
                            fmt(bytes, 0) + " B" + (k.b_resident ? " (A alone: B is loaded once and kept)" : "") +
                            " at this CTA's share of DRAM bandwidth (" +
                            fmt(a.dram_gbps, 0) + " GB/s / " + std::to_string(a.sm_count) + " SMs / " +
                            fmt(a.sm_clock_mhz, 0) + " MHz = " + fmt(bw_per_sm_clk, 1) + " B/clk/SM, / " +
                            std::to_string(B) + " CTA(s)) = " + fmt(e.t_copy, 0) + " cycles");
    e.assumptions.push_back("worst case: every k_tile from DRAM; L2 hits (operand reuse across CTAs) "
                            "arrive sooner, so this bounds the stages from above");
  }
  if (e.t_compute > 0 && e.t_copy > 0) {
    e.min_stages = minimum_stages((long long)std::ceil(e.t_copy), (long long)std::ceil(e.t_compute));
    if (!e.copy_given)
      e.min_stages_latency_only = minimum_stages((long long)std::ceil(e.t_copy - e.transfer),
                                                 (long long)std::ceil(e.t_compute));
  }
  e.bandwidth_bound = !e.copy_given && e.transfer > e.t_compute && e.t_compute > 0;
  if (e.bandwidth_bound)
    e.assumptions.push_back("the transfer alone (" + fmt(e.transfer, 0) + " cycles) exceeds T_compute: "
                            "from DRAM this tile is bandwidth-bound, which stages cannot hide; "
                            "only L2 reuse or a larger tile (higher compute/load ratio) can");
  return e;
}

Ranking rank_variants(const ArchSpec& a, long long m, long long n, long long k, const Problem* types,
                      RegsLookup regs_for) {
  Ranking r;
  for (const Variant& v : variants()) {
    auto reject = [&](std::string why) { r.rejected.push_back({&v, std::move(why)}); };
    if (v.is_peer()) {
      reject("cuBLAS peer: picks its own tile at run time, nothing to plan");
      continue;
    }
    Problem p = types ? *types : Problem{};
    p.m = m; p.n = n; p.k = k;
    p.lda = p.ldb = p.ldd = 0;  // packed
    if (!types) {
      p.a_type = v.a_type; p.b_type = v.b_type; p.d_type = v.d_type; p.acc_type = v.acc_type;
    }
    if (types && (v.a_type != p.a_type || v.b_type != p.b_type || v.acc_type != p.acc_type ||
                  v.d_type != p.d_type)) {  // the types first: an arch refusal would hide them
      reject(std::string("computes A=") + to_string(v.a_type) + " acc=" + to_string(v.acc_type) + " D=" +
             to_string(v.d_type) + ", the problem asks A=" + to_string(p.a_type) + " acc=" +
             to_string(p.acc_type) + " D=" + to_string(p.d_type));
      continue;
    }
    Status s = check_variant(v, p, a.sm);
    if (!s.ok()) {
      std::string msg = s.message;
      if (msg.rfind(v.name + ": ", 0) == 0) msg = msg.substr(v.name.size() + 2);
      reject(msg);
      continue;
    }
    if (v.tile.bm <= 0 || v.tile.bn <= 0 || v.tile.threads <= 0) {
      reject("no CTA tile registered");
      continue;
    }
    RankedVariant rv;
    rv.v = &v;
    rv.kernel = kernel_from_variant(v);
    if (regs_for) rv.kernel.regs_per_thread = regs_for(v, a, &rv.kernel.regs_source);
    rv.occ = occupancy(a, v.tile.threads, v.tile.dynamic_smem(), rv.kernel.regs_per_thread,
                       rv.kernel.static_smem, rv.kernel.barriers);
    if (!rv.occ.error.empty() || rv.occ.blocks <= 0) {
      reject("does not fit one SM of " + a.name + ": " + (rv.occ.error.empty() ? "0 blocks" : rv.occ.error));
      continue;
    }
    rv.waves = waves_for(m, n, v.tile.bm, v.tile.bn, rv.occ.blocks, a.sm_count);
    r.ranked.push_back(rv);
  }
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [](const RankedVariant& x, const RankedVariant& y) {
    if (x.waves.waves != y.waves.waves) return x.waves.waves < y.waves.waves;
    if (x.waves.last_wave_util != y.waves.last_wave_util) return x.waves.last_wave_util > y.waves.last_wave_util;
    return x.v->rung > y.v->rung;
  });
  return r;
}

}  // namespace pipegemm::plan
