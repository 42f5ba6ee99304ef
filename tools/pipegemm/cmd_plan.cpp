// `pipegemm plan`: seeds 001 and 004's arithmetic for a registered kernel or a described tile,
// on the live GPU or any GPU of the table. Needs no GPU.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/planner.hpp"

namespace pipegemm::cli {
namespace {

using namespace pipegemm::plan;

struct PlanOpts {
  std::string kernel, tile, dtype, acc, family, mma, arch, shape;
  // -1 = not given; a given value must be positive (0 is refused, not taken as "absent").
  int stages = -1, threads = -1, regs = -1;
  double t_copy = -1, t_compute = -1;
  int latency = -1;
  bool archs = false, json = false;
};

std::string kb(double bytes) {
  double k = bytes / 1024.0;
  return fmt(k, k == double(int64_t(k)) ? 0 : 1) + " KB";
}
std::string lim(int v) { return v == INT_MAX ? "-" : std::to_string(v); }
std::string pct(double f) { return fmt(100.0 * f, 1) + "%"; }

// The live GPU when --arch is absent or names the live device's arch.
bool live_matches(const ArchSpec& a) {
  const DeviceInfo& d = device_info();
  return d.present && d.sm == a.sm;
}

// Registers of a registered variant: the live kernel (cudaFuncGetAttributes) when the plan is
// for the live GPU, else cuobjdump -res-usage of this executable, else unknown.
int regs_for_variant(const Variant& v, const ArchSpec& a, std::string* source, int* static_smem,
                     int* cuda_blocks) {
  if (a.source.rfind("live", 0) == 0 && v.occupancy) {
    int blocks = 0, regs = 0;
    Status s = v.occupancy(&blocks, &regs);
    if (s.ok() && regs > 0) {
      if (cuda_blocks) *cuda_blocks = blocks;
      *source = "cudaFuncGetAttributes (live device)";
      return regs;
    }
  }
  ResUsage r;
  std::string why;
  if (res_usage_from_cuobjdump(v.sass.symbol, a.sm, &r, &why)) {
    *source = "cuobjdump -res-usage, " + r.cubin_arch + " cubin of this binary";
    if (r.matches > 1)
      *source += "; " + std::to_string(r.matches) + " kernels match '" + v.sass.symbol + "', the largest taken";
    if (static_smem) *static_smem = r.static_smem;
    return r.regs;
  }
  *source = "unknown (" + why + "; pass --regs)";
  return 0;
}

int regs_lookup(const Variant& v, const ArchSpec& a, std::string* source) {
  return regs_for_variant(v, a, source, nullptr, nullptr);
}

bool parse_tile(const std::string& s, int* bm, int* bn, int* bk) {
  int64_t m = 0, n = 0, k = 0;
  if (!parse_shape(s, &m, &n, &k) || m <= 0 || n <= 0 || k <= 0 || m > 4096 || n > 4096 || k > 4096)
    return false;
  *bm = int(m); *bn = int(n); *bk = int(k);
  return true;
}

// A described tile: the checks a kernel of that shape would static_assert.
bool custom_kernel(const PlanOpts& o, const ArchSpec& a, KernelDesc* k, std::string* err) {
  k->label = "custom";
  if (!parse_tile(o.tile, &k->bm, &k->bn, &k->bk)) {
    *err = "bad --tile '" + o.tile + "' (expected BMxBNxBK, positive, e.g. 128x128x32)";
    return false;
  }
  if (!o.dtype.empty() && !parse_dtype(o.dtype, &k->in)) {
    *err = "unknown --dtype '" + o.dtype + "' (f16, bf16, i8, f32)";
    return false;
  }
  if (k->in == DType::i32) {
    *err = "--dtype i32 is an accumulator type, not an input (f16, bf16, i8, f32)";
    return false;
  }
  k->acc = k->in == DType::i8 ? DType::i32 : DType::f32;
  if (!o.acc.empty() && !parse_dtype(o.acc, &k->acc)) {
    *err = "unknown --acc '" + o.acc + "' (f16, f32, i32)";
    return false;
  }
  // Pipeline kind and instruction: from --family (a registered family lends its kind) or words.
  k->pipeline = PipelineKind::cp_async_ring;
  k->mma = k->in == DType::f32 ? MmaKind::ffma : MmaKind::mma_sync;
  if (!o.family.empty()) {
    const std::string& f = o.family;
    const Variant* like = nullptr;
    for (const Variant& v : variants())
      if (v.family == f && !v.is_peer()) { like = &v; break; }
    if (like) {
      KernelDesc d = kernel_from_variant(*like);
      k->family = f;
      k->pipeline = d.pipeline == PipelineKind::single || d.pipeline == PipelineKind::none
                        ? PipelineKind::cp_async_ring : d.pipeline;
      if (k->in != DType::f32) k->mma = d.mma;
    } else if (f == "cp.async" || f == "cp_async") {
      k->pipeline = PipelineKind::cp_async_ring;
    } else if (f == "mbarrier" || f == "tma") {
      k->pipeline = PipelineKind::mbarrier_ring;
      if (a.sm >= 90 && k->in != DType::f32) k->mma = MmaKind::wgmma;
    } else if (f == "ldg") {
      k->pipeline = PipelineKind::ldg_register;
    } else {
      std::string fams;
      for (const Variant& v : variants())
        if (!v.is_peer() && fams.find(v.family) == std::string::npos) fams += ", " + v.family;
      *err = "unknown --family '" + f + "' (cp.async, mbarrier, ldg" + fams + ")";
      return false;
    }
  }
  if (!o.mma.empty()) {
    if (o.mma == "mma.sync" || o.mma == "mma") k->mma = MmaKind::mma_sync;
    else if (o.mma == "wgmma") k->mma = MmaKind::wgmma;
    else if (o.mma == "ffma") k->mma = MmaKind::ffma;
    else {
      *err = "unknown --mma '" + o.mma + "' (mma.sync, wgmma, ffma)";
      return false;
    }
  }
  if (k->mma == MmaKind::wgmma && a.sm < 90) {
    *err = "wgmma needs sm_90a; " + a.name + " is sm_" + std::to_string(a.sm);
    return false;
  }
  if (k->pipeline == PipelineKind::mbarrier_ring && a.sm < 80) {
    *err = "the mbarrier ring needs sm_80+";
    return false;
  }
  k->stages = o.stages >= 0 ? o.stages : 2;
  if (k->stages < 2) {
    *err = "--stages " + std::to_string(k->stages) +
           ": a pipeline needs at least 2 stages (1 = a single buffer, nothing overlaps)";
    return false;
  }
  k->threads = o.threads >= 0 ? o.threads : 128;
  if (k->threads <= 0 || k->threads % 32 || k->threads > a.max_threads_per_block) {
    *err = "--threads " + std::to_string(k->threads) + ": must be a multiple of 32 in 32.." +
           std::to_string(a.max_threads_per_block);
    return false;
  }
  // Tile divisibility: MMA instruction shape and 16-byte copy vectors.
  const int eb = dtype_bytes(k->in);
  int mm = 1, mn = 1, mk = 1;
  if (k->mma == MmaKind::mma_sync) { mm = 16; mn = 8; mk = k->in == DType::i8 ? 32 : 16; }
  if (k->mma == MmaKind::wgmma) { mm = 64; mn = 8; mk = 32 / eb; }
  const std::string mname = to_string(k->mma);
  if (k->bm % mm || k->bn % mn || k->bk % mk) {
    *err = "tile " + o.tile + " does not divide into " + mname + " instructions (" + std::to_string(mm) +
           "x" + std::to_string(mn) + "x" + std::to_string(mk) + " for " + to_string(k->in) +
           "): BM % " + std::to_string(mm) + ", BN % " + std::to_string(mn) + ", BK % " +
           std::to_string(mk) + " must be 0";
    return false;
  }
  if ((k->bk * eb) % 16) {
    *err = "BK=" + std::to_string(k->bk) + " " + to_string(k->in) + " is " + std::to_string(k->bk * eb) +
           " bytes per row: not a whole number of 16-byte copy vectors";
    return false;
  }
  if (o.regs > 0) {
    k->regs_per_thread = o.regs;
    k->regs_source = "--regs";
  } else {
    k->regs_source = "unknown (pass --regs: blocks/SM are an upper bound)";
  }
  const int smem = smem_bytes(*k, k->stages);
  if (smem > a.smem_per_block_optin) {
    *err = std::to_string(k->stages) + " stages of " + o.tile + " " + to_string(k->in) + " need " +
           kb(smem) + " of shared memory per CTA; " + a.name + " (sm_" + std::to_string(a.sm) +
           ") allows at most " + kb(a.smem_per_block_optin) + " (with opt-in)";
    return false;
  }
  return true;
}

std::string arch_line(const ArchSpec& a) {
  std::ostringstream os;
  os << a.sm_count << " SMs; smem " << kb(a.smem_per_sm) << "/SM, " << kb(a.smem_per_block_optin)
     << "/block opt-in (" << kb(a.smem_per_block) << " default), " << kb(a.smem_reserved_per_block)
     << " reserved/block, " << a.smem_alloc_granularity << " B granularity; " << a.regs_per_sm
     << " regs/SM, " << a.max_regs_per_thread << "/thread, allocated per warp in " << a.reg_alloc_unit
     << "; " << a.max_threads_per_sm << " threads, " << a.max_warps_per_sm << " warps, "
     << a.max_blocks_per_sm << " blocks/SM; " << fmt(a.sm_clock_mhz, 0) << " MHz, "
     << fmt(a.dram_gbps, 0) << " GB/s";
  return os.str();
}

int print_archs(bool json) {
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const ArchSpec& a : arch_table())
      j.push_back({{"key", a.key}, {"name", a.name}, {"sm", a.sm}, {"sm_count", a.sm_count},
                   {"smem_per_sm", a.smem_per_sm}, {"smem_per_block", a.smem_per_block},
                   {"smem_per_block_optin", a.smem_per_block_optin},
                   {"smem_reserved_per_block", a.smem_reserved_per_block},
                   {"smem_alloc_granularity", a.smem_alloc_granularity}, {"regs_per_sm", a.regs_per_sm},
                   {"regs_per_block", a.regs_per_block}, {"max_regs_per_thread", a.max_regs_per_thread},
                   {"reg_alloc_unit", a.reg_alloc_unit}, {"max_threads_per_block", a.max_threads_per_block},
                   {"max_threads_per_sm", a.max_threads_per_sm}, {"max_warps_per_sm", a.max_warps_per_sm},
                   {"max_blocks_per_sm", a.max_blocks_per_sm}, {"sm_clock_mhz", a.sm_clock_mhz},
                   {"dram_gbps", a.dram_gbps}, {"dram_latency_cycles", a.dram_latency_cycles},
                   {"notes", a.notes}});
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const ArchSpec& a : arch_table())
    rows.push_back({a.key, "sm_" + std::to_string(a.sm), a.name, std::to_string(a.sm_count),
                    kb(a.smem_per_sm), kb(a.smem_per_block_optin), kb(a.smem_reserved_per_block),
                    std::to_string(a.regs_per_sm), std::to_string(a.max_threads_per_sm),
                    std::to_string(a.max_warps_per_sm), std::to_string(a.max_blocks_per_sm),
                    fmt(a.sm_clock_mhz, 0), fmt(a.dram_gbps, 0)});
  std::cout << table({"key", "arch", "GPU", "SMs", "smem/SM", "smem/block", "reserved", "regs/SM",
                      "threads/SM", "warps/SM", "blocks/SM", "MHz", "GB/s"}, rows)
            << "smem allocated in 128 B units; registers per warp in 256-register units (per-thread "
               "count rounded up to 8), over 4 sub-partitions; <= 255 registers/thread.\n"
               "Names: sm_80 = a100, sm_86 = rtx3070 (GA104), sm_89 = rtx4090, sm_90 = h200.\n";
  return kOk;
}

int run_plan(const PlanOpts& o) {
  if (o.archs) return print_archs(o.json);
  if (!o.kernel.empty() && !o.tile.empty()) return fail_usage("--kernel and --tile exclude each other");
  const bool tile_opts = o.stages >= 0 || o.threads >= 0 || !o.family.empty() || !o.mma.empty() ||
                         !o.dtype.empty() || !o.acc.empty();
  if (!o.kernel.empty() && tile_opts)
    return fail_usage("--stages/--threads/--dtype/--acc/--family/--mma describe a --tile; a registered kernel has its own");
  if (o.tile.empty() && tile_opts)
    return fail_usage("--stages/--threads/--dtype/--acc/--family/--mma need --tile BMxBNxBK");
  if (o.regs == 0 || o.regs < -1 || o.regs > 255)
    return fail_usage("--regs " + std::to_string(o.regs) + ": must be 1..255");
  if ((o.t_copy != -1 && o.t_copy <= 0) || (o.t_compute != -1 && o.t_compute <= 0) ||
      (o.latency != -1 && o.latency <= 0))
    return fail_usage("--t-copy, --t-compute and --latency are cycles and must be positive");

  // The GPU: the live device takes precedence over the table for its own arch.
  ArchSpec a;
  std::string arch_note;
  const DeviceInfo& dev = device_info();
  if (o.arch.empty()) {
    if (dev.present && arch_from_device(dev, &a).ok()) {
      arch_note = a.source;
    } else {
      find_arch("h200", &a);
      arch_note = "no usable GPU (" + (dev.present ? "sm_" + std::to_string(dev.sm) + " not in the table" : dev.why_absent) +
                  "): the table's H200; --arch picks another";
    }
  } else {
    Status s = find_arch(o.arch, &a);
    if (!s.ok()) return fail_usage(s.message);
    if (live_matches(a) && arch_from_device(dev, &a).ok())
      arch_note = a.source + ", its sm_" + std::to_string(a.sm) + " matching --arch " + o.arch;
    else
      arch_note = "table";
  }

  // The kernel.
  KernelDesc k;
  const Variant* v = nullptr;
  int cuda_blocks = -1;
  if (!o.tile.empty()) {
    std::string err;
    if (!custom_kernel(o, a, &k, &err)) return fail_usage(err);
  } else {
    const std::string name = o.kernel.empty() ? "k4_seed_f32acc" : o.kernel;
    v = find_variant(name);
    if (!v) return fail_usage("unknown kernel '" + name + "' (see `pipegemm list`)");
    if (v->is_peer() || v->tile.bm <= 0)
      return fail_usage(name + " is a cuBLAS peer: it picks its own tile, there is nothing to plan");
    if (a.sm < v->min_sm || (v->max_sm && a.sm > v->max_sm))
      return fail_usage(name + (v->max_sm ? " is sm_" + std::to_string(v->max_sm) + "a-only code"
                                          : " needs sm_" + std::to_string(v->min_sm) + " or newer") +
                        "; " + a.name + " is sm_" + std::to_string(a.sm));
    k = kernel_from_variant(*v);
    if (o.regs > 0) {
      k.regs_per_thread = o.regs;
      k.regs_source = "--regs";
    } else {
      k.regs_per_thread = regs_for_variant(*v, a, &k.regs_source, &k.static_smem, &cuda_blocks);
    }
  }
  const int smem = smem_bytes(k, k.stages);
  Occupancy occ = occupancy(a, k.threads, smem, k.regs_per_thread, k.static_smem, k.barriers);
  if (!occ.error.empty()) return fail_usage(k.label + " cannot launch on " + a.name + ": " + occ.error);

  // Problem shape (optional).
  int64_t M = 0, N = 0, K = 0;
  if (!o.shape.empty()) {
    if (!parse_shape(o.shape, &M, &N, &K) || M <= 0 || N <= 0 || K <= 0)
      return fail_usage("bad --shape '" + o.shape + "' (expected MxNxK, positive, e.g. 4096x4096x4096)");
    if (!v && (M % k.bm || N % k.bn || K % k.bk))
      return fail_usage("tile " + o.tile + " does not divide the shape " + o.shape + " (M % BM, N % BN, K % BK must be 0)");
  }

  std::vector<StageRow> rows = stage_table(a, k);
  const double ratio = compute_load_ratio(k.bm, k.bn, k.bk, dtype_bytes(k.in));
  VariantAdvice adv = recommend_variant(ratio, occ.warps_per_sm);
  StageEstimate est = estimate_stages(a, k, occ.blocks, std::max(o.t_copy, 0.0), std::max(o.t_compute, 0.0),
                                     std::max(o.latency, 0));
  const bool pipelined = k.pipeline != PipelineKind::none && k.pipeline != PipelineKind::single;
  const int max_n = std::min(a.max_blocks_per_sm, 8);

  Ranking rank;
  Waves own;
  if (M > 0) {
    // The problem's types: the planned kernel's (a described tile's output is its input type).
    Problem types;
    types.a_type = types.b_type = k.in;
    types.acc_type = k.acc;
    types.d_type = v ? v->d_type : (k.in == DType::i8 ? DType::i32 : k.in);
    rank = rank_variants(a, M, N, K, &types, &regs_lookup);
    own = waves_for(M, N, k.bm, k.bn, occ.blocks, a.sm_count);
  }

  if (o.json) {
    nlohmann::json j;
    j["arch"] = {{"key", a.key}, {"name", a.name}, {"sm", a.sm}, {"source", a.source}, {"note", arch_note},
                 {"sm_count", a.sm_count}, {"smem_per_sm", a.smem_per_sm},
                 {"smem_per_block_optin", a.smem_per_block_optin},
                 {"smem_reserved_per_block", a.smem_reserved_per_block},
                 {"smem_alloc_granularity", a.smem_alloc_granularity}, {"regs_per_sm", a.regs_per_sm},
                 {"max_threads_per_sm", a.max_threads_per_sm}, {"max_warps_per_sm", a.max_warps_per_sm},
                 {"max_blocks_per_sm", a.max_blocks_per_sm}, {"sm_clock_mhz", a.sm_clock_mhz},
                 {"dram_gbps", a.dram_gbps}};
    j["kernel"] = {{"label", k.label}, {"family", k.family}, {"bm", k.bm}, {"bn", k.bn}, {"bk", k.bk},
                   {"stages", k.stages}, {"threads", k.threads}, {"dtype", to_string(k.in)},
                   {"acc", to_string(k.acc)}, {"pipeline", to_string(k.pipeline)}, {"mma", to_string(k.mma)},
                   {"regs_per_thread", k.regs_per_thread}, {"regs_source", k.regs_source},
                   {"static_smem", k.static_smem}, {"extra_smem", k.extra_smem},
                   {"smem_bytes", smem}, {"smem_per_stage", ring_bytes_per_stage(k)}};
    auto occ_json = [](const Occupancy& x) {
      auto l = [](int n) { return n == INT_MAX ? nlohmann::json(nullptr) : nlohmann::json(n); };
      return nlohmann::json{{"blocks_per_sm", x.blocks}, {"limited_by", x.limiter},
                            {"by_smem", l(x.by_smem)}, {"by_regs", l(x.by_regs)}, {"by_warps", l(x.by_warps)},
                            {"by_blocks", l(x.by_blocks)}, {"by_barriers", l(x.by_barriers)},
                            {"smem_footprint", x.smem_alloc}, {"regs_known", x.regs_known},
                            {"warps_per_sm", x.warps_per_sm}, {"occupancy", x.occupancy}};
    };
    j["occupancy"] = occ_json(occ);
    if (cuda_blocks >= 0) j["occupancy"]["cuda_blocks_per_sm"] = cuda_blocks;
    j["stages"] = nlohmann::json::array();
    for (const StageRow& r : rows) {
      nlohmann::json x = occ_json(r.occ);
      x["stages"] = r.stages;
      x["smem_bytes"] = r.smem;
      x["cliff"] = r.cliff;
      j["stages"].push_back(x);
    }
    j["smem_for_blocks"] = nlohmann::json::array();
    for (int n = 1; n <= max_n; ++n)
      j["smem_for_blocks"].push_back({{"blocks", n}, {"max_dynamic_smem", max_dynamic_smem_for_blocks(a, n, k.static_smem)}});
    j["compute_load"] = {{"ratio", ratio}, {"recommendation", adv.choice}, {"reason", adv.reason}};
    j["min_stages"] = {{"t_copy", est.t_copy}, {"t_compute", est.t_compute}, {"min_stages", est.min_stages},
                       {"min_stages_latency_only", est.min_stages_latency_only},
                       {"bandwidth_bound", est.bandwidth_bound}, {"assumptions", est.assumptions},
                       {"kernel_stages", k.stages}};
    if (M > 0) {
      j["problem"] = {{"m", M}, {"n", N}, {"k", K}};
      j["waves"] = {{"tiles", own.tiles}, {"slots", own.slots}, {"waves", own.waves},
                    {"last_wave_util", own.last_wave_util}, {"efficiency", own.efficiency}};
      j["ranking"] = nlohmann::json::array();
      for (const RankedVariant& r : rank.ranked)
        j["ranking"].push_back({{"variant", r.v->name}, {"blocks_per_sm", r.occ.blocks},
                                {"limited_by", r.occ.limiter}, {"regs_per_thread", r.kernel.regs_per_thread},
                                {"regs_source", r.kernel.regs_source},
                                {"tiles", r.waves.tiles}, {"waves", r.waves.waves},
                                {"last_wave_util", r.waves.last_wave_util}, {"efficiency", r.waves.efficiency}});
      j["rejected"] = nlohmann::json::array();
      for (auto& r : rank.rejected) j["rejected"].push_back({{"variant", r.first->name}, {"reason", r.second}});
    }
    std::cout << j.dump(2) << "\n";
    return kOk;
  }

  std::ostringstream os;
  os << "pipegemm plan: " << k.label << " on " << a.name << " (sm_" << a.sm << ", " << arch_note << ")\n";
  os << "GPU     " << arch_line(a) << "\n";
  if (a.source != "table") os << "        " << a.notes << "\n";
  os << "kernel  " << (k.family.empty() ? "" : k.family + ", ") << k.bm << "x" << k.bn << "x" << k.bk << ", "
     << k.stages << " stage(s), " << k.threads << " threads, " << to_string(k.in) << " in / " << to_string(k.acc)
     << " acc, " << to_string(k.pipeline) << ", " << to_string(k.mma) << "\n";
  os << "regs    " << (k.regs_per_thread ? std::to_string(k.regs_per_thread) + "/thread, " : "") << k.regs_source << "\n";
  if (k.static_smem) os << "static  " << k.static_smem << " B __shared__ per CTA\n";
  if (k.extra_smem) os << "extra   " << k.extra_smem << " B of dynamic smem beyond the ring (kept at every stage count)\n";

  if (rows.empty()) {
    os << "\nNo shared-memory ring: " << kb(smem) << " of dynamic smem, occupancy from registers and threads.\n";
  } else {
    os << "\nShared memory and occupancy per stage count (a stage: A " << k.bm << "x" << k.bk << " + B " << k.bn
       << "x" << k.bk << " " << to_string(k.in) << " = " << kb(ring_bytes_per_stage(k))
       << (k.pipeline == PipelineKind::mbarrier_ring ? ", 16 B of full/empty mbarriers included" : "") << ")\n";
    std::vector<std::vector<std::string>> t;
    for (size_t i = 0; i < rows.size(); ++i) {  // the first 8, the kernel's own, cliffs and the last
      const StageRow& r = rows[i];
      bool show = r.stages <= 8 || r.cliff || r.stages == k.stages || i + 1 == rows.size() ||
                  (i + 1 < rows.size() && rows[i + 1].cliff);
      if (!show) continue;
      if (!t.empty() && t.back()[0] != "..." && std::stoi(t.back()[0]) + 1 < r.stages)
        t.push_back({"...", "", "", "", "", "", "", ""});
      std::string mark = r.stages == k.stages ? "<- this kernel" : "";
      if (r.cliff)
        mark += (mark.empty() ? "" : ", ") + std::string("cliff: one stage less keeps ") +
                std::to_string(rows[i - 1].occ.blocks) + " blocks";
      t.push_back({std::to_string(r.stages), kb(r.smem), kb(r.occ.smem_alloc), std::to_string(r.occ.blocks),
                   r.occ.limiter, std::to_string(r.occ.warps_per_sm), pct(r.occ.occupancy), mark});
    }
    os << table({"stages", "smem", "footprint", "blocks/SM", "limited by", "warps/SM", "occupancy", ""}, t);
    os << "footprint = dynamic + static + " << a.smem_reserved_per_block << " B reserved, rounded up to "
       << a.smem_alloc_granularity << " B; up to " << rows.back().stages << " stages fit one CTA ("
       << kb(a.smem_per_block_optin) << " opt-in)"
       << (occ.regs_known ? "" : "; registers unknown: blocks/SM ignore them (upper bound)") << ".\n";
  }
  if (!rows.empty()) {
    os << "smem cliffs: dynamic smem per CTA that keeps n blocks/SM:";
    for (int n = max_n; n >= 1; --n) os << "  " << n << ": <= " << kb(max_dynamic_smem_for_blocks(a, n, k.static_smem));
    os << "\n";
  }
  os << "this kernel: " << occ.blocks << " blocks/SM (" << occ.limiter << "), " << occ.warps_per_sm << " warps, "
     << pct(occ.occupancy) << " occupancy; limits: smem " << lim(occ.by_smem) << ", registers " << lim(occ.by_regs)
     << ", warps " << lim(occ.by_warps) << ", blocks " << lim(occ.by_blocks)
     << (occ.by_barriers != INT_MAX ? ", barriers " + lim(occ.by_barriers) : "") << "\n";
  if (cuda_blocks >= 0) os << "CUDA (cudaOccupancyMaxActiveBlocksPerMultiprocessor): " << cuda_blocks << " blocks/SM\n";

  os << "\nCompute/load ratio (004): 2*BM*BN*BK / ((BM*BK + BK*BN) * " << dtype_bytes(k.in) << " B) = "
     << fmt(ratio, 1) << " FLOP/B\n  -> " << adv.choice << ": " << adv.reason << "\n";
  if (a.sm >= 90 && k.pipeline != PipelineKind::mbarrier_ring)
    os << "  (sm_90: the TMA + mbarrier ring with wgmma is the Hopper alternative to both)\n";

  if (est.min_stages_latency_only > 0)
    os << "\nMinimum stages (001): ceil(T_copy / T_compute) + 1 = " << est.min_stages_latency_only << " .. "
       << est.min_stages << "\n  " << est.min_stages_latency_only << " = ceil(" << fmt(est.t_copy - est.transfer, 0)
       << " / " << fmt(est.t_compute, 0) << ") + 1 with T_copy = the latency alone (operands from L2, bandwidth not binding)\n  "
       << est.min_stages << " = ceil(" << fmt(est.t_copy, 0) << " / " << fmt(est.t_compute, 0)
       << ") + 1 with T_copy = latency + the k_tile's DRAM transfer (worst case)\n";
  else
    os << "\nMinimum stages (001): ceil(T_copy / T_compute) + 1 = ceil(" << fmt(est.t_copy, 0) << " / "
       << fmt(est.t_compute, 0) << ") + 1 = " << est.min_stages << "\n";
  for (const std::string& s : est.assumptions) os << "  " << s << "\n";
  if (pipelined && est.min_stages > 0)
    os << "  this kernel has " << k.stages << " stages: "
       << (k.stages >= est.min_stages ? "enough to hide T_copy by this estimate"
           : k.stages >= est.min_stages_latency_only && est.min_stages_latency_only > 0
               ? "enough while operands come from L2, fewer than the DRAM worst case"
               : "fewer than the estimate: the MMA may wait on copies")
       << "\n";

  if (M > 0) {
    os << "\nProblem " << M << "x" << N << "x" << K << " on " << a.name << ": " << own.tiles << " tiles of "
       << k.bm << "x" << k.bn << " over " << own.slots << " slots (" << occ.blocks << " blocks x " << a.sm_count
       << " SMs) = " << own.waves << " wave(s), last wave " << pct(own.last_wave_util) << " busy\n";
    os << "Registered variants that can run it, best first (fewest waves, fullest last wave):\n";
    std::vector<std::vector<std::string>> rk;
    int i = 0;
    for (const RankedVariant& r : rank.ranked)
      rk.push_back({std::to_string(++i), r.v->name,
                    std::to_string(r.v->tile.bm) + "x" + std::to_string(r.v->tile.bn) + "x" +
                        std::to_string(r.v->tile.bk) + "/" + std::to_string(r.v->tile.stages),
                    std::to_string(r.occ.blocks) + (r.occ.regs_known ? "" : "?"), r.occ.limiter,
                    std::to_string(r.waves.tiles), std::to_string(r.waves.waves), pct(r.waves.last_wave_util),
                    pct(r.waves.efficiency)});
    os << table({"#", "variant", "tile/stages", "blocks/SM", "limited by", "tiles", "waves", "last wave", "efficiency"}, rk);
    bool unknown = false;
    for (const RankedVariant& r : rank.ranked) unknown |= !r.occ.regs_known;
    if (unknown) os << "? = registers unknown: blocks/SM are an upper bound.\n";
    // One line per rejected kernel of these types; the peers and the other types summarized.
    int peers = 0, other_types = 0;
    std::vector<std::string> lines;
    for (auto& r : rank.rejected) {
      if (r.first->is_peer()) ++peers;
      else if (r.second.rfind("computes ", 0) == 0) ++other_types;
      else lines.push_back("  " + r.first->name + ": " + r.second);
    }
    if (!lines.empty()) os << "Rejected:\n";
    for (auto& l : lines) os << l << "\n";
    if (other_types)
      os << "Not these types (" << to_string(k.in) << " in, " << to_string(k.acc) << " acc): " << other_types
         << " variant(s); --json lists each with its reason.\n";
    if (peers) os << "cuBLAS peers (" << peers << "): pick their own tile at run time, nothing to plan.\n";
  }
  std::cout << os.str();
  return kOk;
}

}  // namespace

void add_plan(CLI::App& app, int* rc) {
  auto o = std::make_shared<PlanOpts>();
  auto* cmd = app.add_subcommand(
      "plan", "smem budget per stage count, occupancy and its cliffs, compute/load ratio -> variant, "
              "minimum stages, variants ranked for a shape (seeds 001, 004); needs no GPU");
  cmd->add_option("-k,--kernel", o->kernel, "a registered variant (default k4_seed_f32acc)");
  cmd->add_option("--tile", o->tile, "plan a tile instead: BMxBNxBK");
  cmd->add_option("--stages", o->stages, "with --tile: ring slots (>= 2; default 2)");
  cmd->add_option("--threads", o->threads, "with --tile: threads per CTA (default 128)");
  cmd->add_option("--dtype", o->dtype, "with --tile: input type f16, bf16, i8, f32 (default f16)");
  cmd->add_option("--acc", o->acc, "with --tile: accumulation type f16, f32, i32 (default f32; i32 for i8)");
  cmd->add_option("--family", o->family, "with --tile: pipeline kind: cp.async, mbarrier, ldg, or a registered family");
  cmd->add_option("--mma", o->mma, "with --tile: mma.sync, wgmma, ffma (default from dtype and family)");
  cmd->add_option("--arch", o->arch, "sm_80, sm_86, sm_89, sm_90 or a GPU key (--archs); default: the live GPU, else h200");
  cmd->add_option("--regs", o->regs, "registers per thread (default: the compiled kernel's, when known)");
  cmd->add_option("-s,--shape", o->shape, "problem MxNxK: waves, and the registered variants ranked");
  cmd->add_option("--t-copy", o->t_copy, "cycles to copy one k_tile (default: estimated)");
  cmd->add_option("--t-compute", o->t_compute, "cycles to compute one k_tile (default: estimated)");
  cmd->add_option("--latency", o->latency, "DRAM latency in cycles for the T_copy estimate");
  cmd->add_flag("--archs", o->archs, "print the GPU table and exit");
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->callback([rc, o] { *rc = run_plan(*o); });
}

}  // namespace pipegemm::cli
