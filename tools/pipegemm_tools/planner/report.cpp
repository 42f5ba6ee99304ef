// `pipegemm plan`: seeds 001 and 004's arithmetic for a registered kernel or a described tile,
// on the live GPU or any GPU of the table -- the work behind the report, no GPU needed.
#include <algorithm>

#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::plan {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

// Registers of a registered variant: the live kernel (cudaFuncGetAttributes) when the plan is
// for the live GPU, else cuobjdump -res-usage of this executable, else unknown.
int regs_for_variant(const Variant& v, const ArchSpec& a, std::string* source, int* static_smem, int* cuda_blocks) {
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
  if (res_usage_from_cuobjdump(v.symbol, a.sm, &r, &why)) {
    *source = "cuobjdump -res-usage, " + r.cubin_arch + " cubin of this binary";
    if (r.matches > 1)
      *source += "; " + std::to_string(r.matches) + " kernels match '" + v.symbol + "', the largest taken";
    if (static_smem) *static_smem = r.static_smem;
    return r.regs;
  }
  *source = "unknown (" + why + "; pass --regs)";
  return 0;
}

int regs_lookup(const Variant& v, const ArchSpec& a, std::string* source) {
  return regs_for_variant(v, a, source, nullptr, nullptr);
}

// The GPU: the live device takes precedence over the table for its own arch.
Status resolve_arch(const std::string& key, ArchSpec* a, std::string* note) {
  const DeviceInfo& dev = device_info();
  if (key.empty()) {
    if (dev.present && arch_from_device(dev, a).ok()) {
      *note = a->source;
    } else {
      find_arch("h200", a);
      *note = "no usable GPU (" + (dev.present ? "sm_" + std::to_string(dev.sm) + " not in the table" : dev.why_absent) +
              "): the table's H200; --arch picks another";
    }
    return {};
  }
  Status s = find_arch(key, a);
  if (!s.ok()) return bad(s.message);
  if (dev.present && dev.sm == a->sm && arch_from_device(dev, a).ok())
    *note = a->source + ", its sm_" + std::to_string(a->sm) + " matching --arch " + key;
  else
    *note = "table";
  return {};
}

Status check_request(const PlanRequest& r) {
  if (!r.kernel.empty() && !r.tile.empty()) return bad("--kernel and --tile exclude each other");
  const bool tile_opts = r.stages >= 0 || r.threads >= 0 || !r.family.empty() || !r.mma.empty() ||
                         !r.types.in.empty() || !r.types.acc.empty() || !r.types.out.empty();
  if (!r.kernel.empty() && tile_opts)
    return bad("--stages/--threads/--dtype/--acc/--family/--mma describe a --tile; a registered kernel has its own");
  if (r.tile.empty() && tile_opts) return bad("--stages/--threads/--dtype/--acc/--family/--mma need --tile BMxBNxBK");
  if (r.regs == 0 || r.regs < -1 || r.regs > 255) return bad("--regs " + std::to_string(r.regs) + ": must be 1..255");
  if ((r.t_copy != -1 && r.t_copy <= 0) || (r.t_compute != -1 && r.t_compute <= 0) || (r.latency != -1 && r.latency <= 0))
    return bad("--t-copy, --t-compute and --latency are cycles and must be positive");
  return {};
}

// A registered kernel, with its registers from wherever they are known.
Status registered_kernel(const PlanRequest& r, PlanReport* p) {
  const std::string name = r.kernel.empty() ? "seed_f16_128x128x32_s3" : r.kernel;
  const Variant* v = find_variant(name);
  const ArchSpec& a = p->arch;
  if (!v) return bad("unknown kernel '" + name + "' (see `pipegemm list`)");
  if (v->is_peer() || v->tile.bm <= 0)
    return bad(name + " is a cuBLAS peer: it picks its own tile, there is nothing to plan");
  if (a.sm < v->min_sm || (v->max_sm && a.sm > v->max_sm))
    return bad(name + (v->max_sm ? " is sm_" + std::to_string(v->max_sm) + "a-only code"
                                 : " needs sm_" + std::to_string(v->min_sm) + " or newer") +
               "; " + a.name + " is sm_" + std::to_string(a.sm));
  p->variant = v;
  p->kernel = kernel_from_variant(*v);
  KernelDesc& k = p->kernel;
  if (r.regs > 0) {
    k.regs_per_thread = r.regs;
    k.regs_source = "--regs";
  } else {
    k.regs_per_thread = regs_for_variant(*v, a, &k.regs_source, &k.static_smem, &p->cuda_blocks);
  }
  return {};
}

}  // namespace

Status make_report(const PlanRequest& r, PlanReport* out) {
  PlanReport p;
  Status s = check_request(r);
  if (s.ok()) s = resolve_arch(r.arch, &p.arch, &p.arch_note);
  if (s.ok()) s = r.tile.empty() ? registered_kernel(r, &p) : describe_tile(r, p.arch, &p.kernel);
  if (!s.ok()) return s;
  const ArchSpec& a = p.arch;
  const KernelDesc& k = p.kernel;
  p.smem = smem_bytes(k, k.stages);
  p.occ = occupancy(a, k.threads, p.smem, k.regs_per_thread, k.static_smem, k.barriers);
  if (!p.occ.error.empty()) return bad(k.label + " cannot launch on " + a.name + ": " + p.occ.error);

  if (!r.shape.empty()) {
    int64_t M = 0, N = 0, K = 0;
    if (!parse_shape(r.shape, &M, &N, &K) || M <= 0 || N <= 0 || K <= 0)
      return bad("bad --shape '" + r.shape + "' (expected MxNxK, positive, e.g. 4096x4096x4096)");
    if (!p.variant && (M % k.bm || N % k.bn || K % k.bk))
      return bad("tile " + r.tile + " does not divide the shape " + r.shape + " (M % BM, N % BN, K % BK must be 0)");
    p.m = M; p.n = N; p.k = K;
  }

  p.stages = stage_table(a, k);
  p.ratio = compute_load_ratio(k.bm, k.bn, k.bk, dtype_bytes(k.in));
  p.advice = recommend_variant(p.ratio, p.occ.warps_per_sm);
  p.estimate = estimate_stages(a, k, p.occ.blocks, std::max(r.t_copy, 0.0), std::max(r.t_compute, 0.0),
                               std::max(r.latency, 0));
  if (p.m > 0) {
    // The problem's types: the planned kernel's (a described tile's output is its input type).
    Problem types;
    types.a_type = types.b_type = k.in;
    types.acc_type = k.acc;
    types.d_type = p.variant ? p.variant->d_type : (k.in == DType::i8 ? DType::i32 : k.in);
    p.ranking = rank_variants(a, p.m, p.n, p.k, &types, &regs_lookup);
    p.waves = waves_for(p.m, p.n, k.bm, k.bn, p.occ.blocks, a.sm_count);
  }
  *out = std::move(p);
  return {};
}

}  // namespace pipegemm::plan
