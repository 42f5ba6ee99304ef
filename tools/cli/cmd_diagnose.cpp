// `pipegemm diagnose`: one launch of a variant under Nsight Compute, its counters classified
// (pipegemm_tools/diagnose.hpp), or a stored ncu CSV classified again (--from-csv, no GPU).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/diagnose.hpp"
#include "pipegemm_tools/planner.hpp"
#include "pipegemm_tools/toolchain.hpp"

namespace pipegemm::cli {
namespace {

// What the planner and the problem predict for v on p (registers: ncu's, when it reported them).
diagnose::Prediction predict(const Variant& v, const Problem& p, const plan::ArchSpec& a, const diagnose::Counters& c) {
  diagnose::Prediction pr;
  pr.variant = v.name;
  pr.sm_count = a.sm_count;
  plan::KernelDesc k = plan::kernel_from_variant(v);
  if (const double regs = c.get("launch__registers_per_thread"); std::isfinite(regs) && regs > 0) {
    k.regs_per_thread = int(regs);
    k.regs_source = "ncu launch__registers_per_thread";
  }
  const plan::Occupancy occ =
      plan::occupancy(a, k.threads, plan::smem_bytes(k, k.stages), k.regs_per_thread, k.static_smem, k.barriers);
  pr.blocks_per_sm = occ.blocks;
  if (k.stages > 1)
    pr.blocks_one_stage_less =
        plan::occupancy(a, k.threads, plan::smem_bytes(k, k.stages - 1), k.regs_per_thread, k.static_smem, k.barriers).blocks;
  pr.limiter = occ.limiter.empty() ? "-" : occ.limiter;
  pr.stages = k.stages;
  const plan::StageEstimate est = plan::estimate_stages(a, k, std::max(occ.blocks, 1));
  pr.min_stages = est.min_stages;
  pr.min_stages_l2 = est.min_stages_latency_only ? est.min_stages_latency_only : est.min_stages;
  const double ea = dtype_bytes(p.a_type), eb = dtype_bytes(p.b_type), ed = dtype_bytes(p.d_type);
  const double prods_a = p.batch > 1 && p.stride_a == 0 ? 1 : double(p.batch);
  const double prods_b = p.batch > 1 && p.stride_b == 0 ? 1 : double(p.batch);
  pr.ideal_bytes = double(p.m) * p.k * ea * prods_a + double(p.n) * p.k * eb * prods_b + double(p.m) * p.n * ed * p.batch;
  if (p.reads_c()) pr.ideal_bytes += double(p.m) * p.n * dtype_bytes(*p.c_type) * p.batch;
  if (v.tile.bk > 0) pr.k_tiles = int((p.k + v.tile.bk - 1) / v.tile.bk);
  pr.persistent = v.mech.order == TileOrder::persistent;
  if (const plan::ByteBudget b = plan::byte_budget(a, k); b.known) pr.smem_per_clk_at_peak = b.smem_per_clk_at_peak;
  return pr;
}

// The arguments after "diagnose" that bench understands too: ours (--ncu, --from-csv, --arch,
// --metric, --json) taken out.
std::vector<std::string> child_args(const std::vector<std::string>& raw) {
  std::vector<std::string> out = {"bench"};
  bool seen = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!seen) {
      seen = raw[i] == "diagnose";
      continue;
    }
    const std::string& x = raw[i];
    if (x == "--json") continue;
    if (x == "--ncu" || x == "--from-csv" || x == "--arch" || x == "--metric") {
      ++i;
      continue;
    }
    if (x.rfind("--ncu=", 0) == 0 || x.rfind("--from-csv=", 0) == 0 || x.rfind("--arch=", 0) == 0 ||
        x.rfind("--metric=", 0) == 0)
      continue;
    out.push_back(x);
  }
  // One timed launch, no warm-up: the first launch of the variant is the one ncu profiles.
  for (const char* f : {"--reps", "1", "--rounds", "1", "--warmup", "0"}) out.push_back(f);
  return out;
}

// The last `n` characters of ncu's output, for a message that says why.
std::string tail(const std::string& s, size_t n = 2000) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

// Runs ncu; a metric this ncu does not know (another GPU, another release) is dropped and the run
// repeated, so the rest are still collected. *dropped lists them; *log is ncu's whole output.
Status run_ncu(const std::string& ncu, const Variant& v, const std::vector<std::string>& args,
               const std::vector<std::string>& extra, std::string* csv, std::vector<std::string>* dropped,
               std::string* log) {
  std::string self, err;
  if (!toolchain::self_exe(&self, &err)) return Status::error(StatusCode::io_error, err);
  std::vector<std::string> metrics = diagnose::metric_names();
  for (const std::string& m : extra)
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::vector<std::string> a = diagnose::ncu_args(diagnose::kernel_regex(v), self, args);
    for (size_t i = 0; i + 1 < a.size(); ++i)  // this attempt's metric list
      if (a[i] == "--metrics") {
        std::string m;
        for (const std::string& x : metrics) m += (m.empty() ? "" : ",") + x;
        a[i + 1] = m;
      }
    toolchain::RunResult r;
    if (!toolchain::run(ncu, a, &r, &err)) return Status::error(StatusCode::io_error, "cannot run " + ncu + ": " + err);
    const std::string all = r.out + r.err;
    *log = all;
    std::vector<std::string> unknown;
    for (const std::string& m : metrics)
      if (all.find("metric " + m) != std::string::npos || all.find("'" + m + "'") != std::string::npos ||
          all.find("\"" + m + "\"") != std::string::npos)
        if (all.find("ERROR") != std::string::npos) unknown.push_back(m);
    if (r.status == 0 || unknown.empty()) {
      if (r.status != 0 && r.out.find("\"ID\"") == std::string::npos)
        return Status::error(StatusCode::cuda_error, "ncu exited " + std::to_string(r.status) + "; its output ends:\n" + tail(all));
      *csv = r.out;
      return Status::success();
    }
    for (const std::string& m : unknown) {
      metrics.erase(std::remove(metrics.begin(), metrics.end(), m), metrics.end());
      dropped->push_back(m);
    }
  }
  return Status::error(StatusCode::cuda_error, "ncu kept refusing metrics; dropped so far: " + std::to_string(dropped->size()));
}

}  // namespace

void add_diagnose(CLI::App& app, int* rc) {
  struct Args {
    ProblemRequest pr;
    std::string kernel, ncu, from_csv, arch;
    std::vector<std::string> metrics;  // --metric: collected and shown beside the rules' own
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "diagnose",
      "why is this variant this fast on this shape: Nsight Compute's counters of one launch (DRAM and L1 sectors, "
      "stall reasons, occupancy, tensor pipe), classified -- compute-bound, memory-bound, uncoalesced access, stage "
      "starvation, occupancy collapse or latency-bound -- with the planner's prediction beside");
  add_problem_options(cmd, &a->pr, "81920x256x256", false);
  cmd->add_option("-k,--kernel", a->kernel, "the registered variant to profile (`pipegemm list`)")->required();
  cmd->add_option("--ncu", a->ncu, "the ncu to run (default: $PIPEGEMM_NCU, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
  cmd->add_option("--from-csv", a->from_csv,
                  "classify a stored `ncu --csv --page raw` report of this variant instead of profiling (no GPU)");
  cmd->add_option("--arch", a->arch, "with --from-csv: the GPU it ran on, for the prediction (default: this one's, else h200)");
  cmd->add_option("--metric", a->metrics,
                  "also collect this ncu metric and show its value (repeat for several; one this ncu does not "
                  "know is dropped with a note) -- for counters the rules do not read yet");
  cmd->add_flag("--json", a->json, "machine-readable output");
  cmd->callback([a, rc] {
    const Variant* v = find_variant(a->kernel);
    if (!v) {
      *rc = fail_usage("unknown kernel '" + a->kernel + "' (see `pipegemm list`)");
      return;
    }
    if (v->is_peer()) {
      *rc = fail_usage(v->name + " is a cuBLAS peer: diagnose reads pipegemm's own kernels (their symbols)");
      return;
    }
    Problem p;
    if (Status s = problem_for(a->pr, *v, &p); !s.ok()) {
      *rc = fail(s);
      return;
    }
    std::string csv, source, ncu_log;
    std::vector<std::string> dropped;
    if (!a->from_csv.empty()) {
      std::ifstream f(a->from_csv, std::ios::binary);
      std::stringstream ss;
      if (!(f && (ss << f.rdbuf()))) {
        *rc = fail_usage(a->from_csv + ": cannot be read");
        return;
      }
      csv = ss.str();
      source = a->from_csv;
    } else {
      const DeviceInfo& dev = device_info();
      if (!dev.present) {
        std::cerr << "pipegemm diagnose needs a CUDA GPU to profile on: " << dev.why_absent
                  << " (--from-csv FILE classifies a stored ncu report without one)\n";
        *rc = kNoGpu;
        return;
      }
      if (Status s = check_variant(*v, p, dev.sm); !s.ok()) {
        *rc = fail(s);
        return;
      }
      std::string ncu, err;
      if (!diagnose::locate_ncu(a->ncu, &ncu, &err)) {
        std::cerr << "pipegemm diagnose: " << err << "\n";
        *rc = kNoGpu;
        return;
      }
      if (Status s = run_ncu(ncu, *v, child_args(raw_args()), a->metrics, &csv, &dropped, &ncu_log); !s.ok()) {
        *rc = fail(s);
        return;
      }
      source = ncu + " (one launch, --clock-control none)";
    }
    diagnose::Counters c;
    // The kernel template, as ncu was told (a launcher may run another instantiation of it).
    if (Status s = diagnose::parse_ncu_csv(csv, diagnose::kernel_pattern(*v), &c); !s.ok()) {
      if (!ncu_log.empty()) s.message += "; ncu profiled --kernel-name regex:" + diagnose::kernel_regex(*v) + ", its output ends:\n" + tail(ncu_log);
      *rc = fail(s);
      return;
    }
    plan::ArchSpec arch;
    Status s = a->arch.empty() && device_info().present ? plan::arch_from_device(device_info(), &arch)
                                                         : plan::find_arch(a->arch.empty() ? "h200" : a->arch, &arch);
    if (!s.ok()) {
      *rc = fail(s);
      return;
    }
    const diagnose::Prediction pred = predict(*v, p, arch, c);
    diagnose::Diagnosis d = diagnose::classify(c, pred);
    for (const std::string& m : a->metrics)  // asked for, not a rule's: shown as ncu gave it
      d.evidence.push_back({m, m, c.get(m), "", "(--metric)", false});
    report::Document doc = diagnose::diagnosis_document(c, pred, d, source);
    for (const std::string& m : dropped) doc.sections.front().note("ncu does not know " + m + " here: not collected");
    emit(doc, a->json);
  });
}

}  // namespace pipegemm::cli
