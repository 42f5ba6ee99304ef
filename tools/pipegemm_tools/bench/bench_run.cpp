// `pipegemm bench` (and --ladder): the selected variants timed beside cuBLAS, same run, same
// rotated buffers (bench_report.cpp writes their report).
#include <algorithm>

#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm_tools/reports.hpp"

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

bool timing_ok(const BenchOptions& r) { return r.reps >= 1 && r.warmup >= 0 && r.idle_ms >= 0; }

// --ladder (issue 5): one variant per rung for the asked types (the first registered, i.e. each
// rung's preferred config), then its cuBLAS peers.
Status ladder_variants(const Types& t, std::vector<const Variant*>* vs) {
  int max_rung = -1;
  for (const Variant& v : variants()) max_rung = std::max(max_rung, v.rung);
  for (int rung = 0; rung <= max_rung; ++rung)
    for (const Variant& v : variants())
      if (v.rung == rung && v.a_type == t.in && v.acc_type == t.acc && v.d_type == t.out) {
        vs->push_back(&v);
        break;
      }
  if (vs->empty())
    return bad(std::string("no ladder variant computes ") + to_string(t.in) + " in, " + to_string(t.acc) + " acc, " +
               to_string(t.out) + " out");
  for (const Variant* peer : peers_for(*(*vs)[0])) vs->push_back(peer);  // both: best cuBLAS
  return {};
}


struct ShapePlan {
  ProblemRequest problem;          // the shape and types of this run
  Types types;
  std::vector<const Variant*> vs;  // the selection, "auto" aside
};

// One shape: "auto" resolved (and timed first, with its peers), one timing run per (A, B, D) types.
void bench_shape(const ShapePlan& pl, bool want_auto, bool peers, const BenchRequest& r, BenchRuns* runs) {
  std::vector<const Variant*> vs = pl.vs;
  Problem p;
  typed_problem(pl.problem, pl.types, &p);
  BenchResult no_auto;  // auto found no variant
  bool auto_first = false;
  std::string auto_why;
  const bool in_place = pl.problem.c_in_place() && p.reads_c();
  if (want_auto) {
    const Problem np = p.normalized();
    const Operands probe = probe_operands(np, 0, in_place);  // cudaMalloc'd buffers: 256-byte aligned
    const Choice ch = choose_auto_for(np, device_info(), probe);
    if (const Variant* c = ch.variant) {
      std::vector<const Variant*> head{c};
      // --candidates: every variant auto chose among (each also by name, so auto's own pick is
      // timed twice: as "auto" and as itself); else its cuBLAS peers.
      const std::vector<const Variant*> more =
          r.candidates ? accepting_for(np, device_info().sm, probe)
          : peers      ? peers_for(*c)
                       : std::vector<const Variant*>{};
      for (const Variant* q : more)
        if ((r.candidates || q != c) && std::find(vs.begin(), vs.end(), q) == vs.end()) head.push_back(q);
      vs.insert(vs.begin(), head.begin(), head.end());
      auto_first = true;
      auto_why = ch.why;  // starts with its source: cache, model, fallback
    } else {
      no_auto.variant = "auto";
      no_auto.status = Status::error(StatusCode::not_supported, "auto found no variant: " + ch.why);
    }
  }
  // One timing run over one set of rotated buffers per (A, B, D) types: variants that differ only
  // in accumulation (e.g. both cuBLAS peers) share the same buffers. The ladder is one run.
  std::vector<std::vector<const Variant*>> groups;
  for (const Variant* v : vs) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const std::vector<const Variant*>& x) {
      return r.ladder || (x[0]->a_type == v->a_type && x[0]->b_type == v->b_type && x[0]->d_type == v->d_type);
    });
    if (g == groups.end()) groups.push_back({v});
    else g->push_back(v);
  }
  const size_t first = runs->runs.size();
  // A failure is a variant that should have run and did not. Refusals are expected in a sweep
  // (shapes off a kernel's tile) and from a cuBLAS peer added beside the asked variants (cublasGemmEx
  // adds no bias): shown, not failed.
  auto added_peer = [&](const std::string& name) {
    const Variant* v = find_variant(name);
    return v && v->is_peer() &&
           std::find(r.selection.kernels.begin(), r.selection.kernels.end(), name) == r.selection.kernels.end();
  };
  auto count = [&](const BenchResult& x) {
    runs->failures += !x.status.ok() && !(x.status.code == StatusCode::not_supported && (runs->sweep || added_peer(x.variant)));
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!(runs->error = problem_for(pl.problem, *groups[g][0], &p)).ok()) return;
    BenchReport rep;
    BenchOptions opt = r.run;
    opt.c_in_place = in_place;
    runs->error = bench_variants(p, groups[g], opt, &rep);
    if (!runs->error.ok()) return;
    if (g == 0 && auto_first && !rep.results.empty()) {
      rep.results[0].chose = rep.results[0].variant;
      rep.results[0].variant = "auto";
      rep.results[0].why = auto_why;
    }
    for (auto& x : rep.results) count(x);
    runs->runs.push_back(std::move(rep));
  }
  if (no_auto.variant.empty()) return;
  count(no_auto);
  if (runs->runs.size() == first) {
    BenchReport rep;
    typed_problem(pl.problem, pl.types, &rep.problem);
    rep.c_in_place = in_place;
    runs->runs.push_back(std::move(rep));
  }
  runs->runs[first].results.insert(runs->runs[first].results.begin(), no_auto);
}

}  // namespace

Status run_bench(const BenchRequest& r, BenchRuns* out) {
  BenchRuns runs;
  runs.run = r.run;
  runs.ladder = r.ladder;
  runs.suite = r.suite;
  runs.command = r.command;
  if (r.candidates && std::find(r.selection.kernels.begin(), r.selection.kernels.end(), "auto") == r.selection.kernels.end())
    return bad("--candidates times what auto chose among: it needs --kernel auto");
  if (r.ladder && (!r.selection.kernels.empty() || !r.selection.family.empty()))
    return bad("--ladder picks one variant per rung itself; drop --kernel / --family");
  runs.sweep = !r.suite.empty() || is_shape_range(r.problem.shape);
  if (r.ladder && runs.sweep) return bad("--ladder times one --shape; drop --suite / the range");
  std::vector<ShapeRequest> shapes;
  Status s = request_shapes(r.problem, r.suite, &shapes);
  if (s.ok()) s = parse_types(r.problem.types, &runs.types);
  if (!s.ok()) return s;
  Selection sel = r.selection;
  const auto a = std::remove(sel.kernels.begin(), sel.kernels.end(), std::string("auto"));
  const bool want_auto = a != sel.kernels.end();
  sel.kernels.erase(a, sel.kernels.end());
  std::vector<ShapePlan> plans;
  for (const ShapeRequest& sh : shapes) {  // every shape checked before the GPU is looked for
    ShapePlan pl;
    pl.problem = sh.problem;
    pl.types = sh.types;
    if (!(want_auto && sel.kernels.empty()))
      s = r.ladder ? ladder_variants(pl.types, &pl.vs) : select_variants(sel, pl.types, &pl.vs);
    Problem p;
    if (s.ok()) s = pl.vs.empty() ? typed_problem(pl.problem, pl.types, &p) : problem_for(pl.problem, *pl.vs[0], &p);
    if (!s.ok()) return bad(sh.where + s.message);
    plans.push_back(std::move(pl));
  }
  if (!timing_ok(r.run)) return bad("--reps must be >= 1, --warmup and --idle-ms >= 0");
  const DeviceInfo& dev = device_info();
  if (!dev.present)
    return Status::error(StatusCode::no_device, std::string("pipegemm bench") +
                                                    (r.ladder ? " --ladder" : !r.suite.empty() ? " --suite" : "") +
                                                    " needs a CUDA GPU (sm_80 or newer): " + dev.why_absent);
  runs.device = dev.name;
  runs.sm = dev.sm;
  runs.sm_count = dev.sm_count;
  runs.l2_bytes = dev.l2_bytes;
  runs.env = bench_environment();
  runs.shapes = int(plans.size());
  for (size_t i = 0; i < plans.size() && runs.error.ok(); ++i) {
    if (r.progress && plans.size() > 1) r.progress(int(i + 1), int(plans.size()), plans[i].problem.shape);
    bench_shape(plans[i], want_auto, sel.peers, r, &runs);
  }
  if (runs.sweep) runs.summary = suite_summary(runs.runs), runs.semantics_costs = semantics_costs(runs.runs);
  if (runs.sweep && r.candidates) runs.auto_summary = auto_summary(runs.runs);
  *out = std::move(runs);
  return {};
}

}  // namespace pipegemm
