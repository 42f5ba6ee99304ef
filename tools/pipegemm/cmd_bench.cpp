// pipegemm bench: selected variants and their cuBLAS peers, one run, same rotated buffers.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "pipegemm/bench.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm::cli {

nlohmann::json report_json(const BenchReport& r) {
  nlohmann::json j = {{"shape", r.problem.shape_string()}, {"buffer_sets", r.buffer_sets},
                      {"set_bytes", r.set_bytes}, {"copy_gbps", r.copy_gbps}, {"results", nlohmann::json::array()}};
  for (auto& x : r.results)
    j["results"].push_back({{"variant", x.variant}, {"ok", x.status.ok()}, {"message", x.status.message},
                            {"ms_median", x.ms_median}, {"ms_min", x.ms_min}, {"ms_max", x.ms_max},
                            {"samples", x.samples}, {"tflops", x.tflops}, {"gbps", x.gbps},
                            {"pct_of_cublas", x.pct_of_peer}, {"peer", x.peer}});
  return j;
}

std::string report_table(const BenchReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (auto& x : r.results) {
    if (!x.status.ok()) {
      rows.push_back({x.variant, "-", "-", "-", "-", "-", x.status.message});
      continue;
    }
    rows.push_back({x.variant, fmt(x.ms_median, 4), fmt(x.tflops, 1), fmt(x.gbps, 0),
                    r.copy_gbps > 0 ? fmt(100.0 * x.gbps / r.copy_gbps, 1) : "-",
                    x.peer.empty() ? "-" : fmt(x.pct_of_peer, 1), x.peer});
  }
  return table({"variant", "ms(med)", "TFLOPS", "GB/s", "%copyBW", "%cuBLAS", "peer (same types)"}, rows);
}

namespace {
// The header's note on --idle-ms, and the timing options' common check (bench and --ladder).
std::string idle_note(const BenchOptions& r) {
  return r.idle_ms > 0 ? ", " + std::to_string(r.idle_ms) + " ms idle before each block" : "";
}

bool timing_ok(const BenchOptions& r) { return r.reps >= 1 && r.warmup >= 0 && r.idle_ms >= 0; }
}  // namespace

int run_bench(BenchOpts& o) {
  std::string err;
  std::vector<const Variant*> vs;
  if (!select_variants(o.sel, o.prob, &vs, &err)) return fail_usage(err);
  Problem p0;
  if (!problem_for(o.prob, *vs[0], &p0, &err)) return fail_usage(err);
  if (!timing_ok(o.run)) return fail_usage("--reps must be >= 1, --warmup and --idle-ms >= 0");
  const DeviceInfo& dev = device_info();
  if (!dev.present) return no_gpu("bench");
  // Group by operand types: one timing run over one set of rotated buffers per (A, B, D) types;
  // variants that differ only in accumulation (e.g. both cuBLAS peers) share the same buffers.
  std::vector<std::vector<const Variant*>> groups;
  for (const Variant* v : vs) {
    bool placed = false;
    for (auto& g : groups)
      if (g[0]->a_type == v->a_type && g[0]->b_type == v->b_type && g[0]->d_type == v->d_type) {
        g.push_back(v);
        placed = true;
      }
    if (!placed) groups.push_back({v});
  }
  nlohmann::json jr = nlohmann::json::array();
  int failures = 0;
  if (!o.json)
    std::cout << "bench on " << dev.name << " (sm_" << dev.sm << ", " << dev.sm_count << " SMs, L2 "
              << dev.l2_bytes / (1024 * 1024) << " MB); median of " << o.run.reps << " launches after "
              << o.run.warmup << " warm-up, " << o.run.rounds << " interleaved rounds"
              << idle_note(o.run)
              << "\n";
  for (auto& g : groups) {
    Problem p;
    if (!problem_for(o.prob, *g[0], &p, &err)) return fail_usage(err);
    BenchReport rep;
    Status s = bench_variants(p, g, o.run, &rep);
    if (!s.ok()) {
      std::cerr << "pipegemm bench: " << s.message << "\n";
      return kFail;
    }
    for (auto& x : rep.results) failures += !x.status.ok();
    if (o.json) {
      jr.push_back(report_json(rep));
    } else {
      std::cout << "\n" << p.shape_string() << "  " << to_string(p.a_type) << " in, " << to_string(p.d_type)
                << " out;  " << rep.buffer_sets << " buffer sets x "
                << fmt(rep.set_bytes / 1e6, 1) << " MB rotated;  device copy " << fmt(rep.copy_gbps, 0) << " GB/s\n";
      std::cout << report_table(rep);
    }
  }
  if (o.json) std::cout << nlohmann::json({{"device", dev.name}, {"sm", dev.sm}, {"runs", jr}}).dump(2) << "\n";
  return failures ? kFail : kOk;
}

// --ladder (issue 5, seed 004 step 6): one variant per rung for the asked types (the first
// registered, i.e. each rung's preferred config) and the cuBLAS peer, timed in one run on the
// same buffers; speedup is over k1, the load -> sync -> compute -> sync baseline of 004.
int run_ladder(BenchOpts& o) {
  if (!o.sel.kernels.empty() || !o.sel.family.empty())
    return fail_usage("--ladder picks one variant per rung itself; drop --kernel / --family");
  DType in, acc, out;
  std::string err;
  if (!requested_types(o.prob, &in, &acc, &out, &err)) return fail_usage(err);
  if (!timing_ok(o.run)) return fail_usage("--reps must be >= 1, --warmup and --idle-ms >= 0");
  auto same_types = [&](const Variant& v) { return v.a_type == in && v.acc_type == acc && v.d_type == out; };
  std::vector<const Variant*> vs;
  int max_rung = -1;
  for (const Variant& v : variants()) max_rung = std::max(max_rung, v.rung);
  for (int rung = 0; rung <= max_rung; ++rung)
    for (const Variant& v : variants())
      if (v.rung == rung && same_types(v)) {
        vs.push_back(&v);
        break;
      }
  if (vs.empty())
    return fail_usage(std::string("no ladder variant computes ") + to_string(in) + " in, " + to_string(acc) +
                      " acc, " + to_string(out) + " out");
  if (const Variant* peer = peer_for(*vs[0])) vs.push_back(peer);
  Problem p;
  if (!problem_for(o.prob, *vs[0], &p, &err)) return fail_usage(err);
  const DeviceInfo& dev = device_info();
  if (!dev.present) return no_gpu("bench --ladder");
  BenchReport rep;
  Status s = bench_variants(p, vs, o.run, &rep);
  if (!s.ok()) {
    std::cerr << "pipegemm bench: " << s.message << "\n";
    return kFail;
  }
  if (o.json) {
    std::cout << nlohmann::json({{"device", dev.name}, {"sm", dev.sm}, {"ladder", report_json(rep)}}).dump(2) << "\n";
  } else {
    const BenchResult* base = nullptr;
    for (auto& x : rep.results)
      if (const Variant* v = find_variant(x.variant); v && v->rung == 1 && x.status.ok()) base = &x;
    std::vector<std::vector<std::string>> rows;
    for (auto& x : rep.results) {
      const Variant* v = find_variant(x.variant);
      std::string rung = v && !v->is_peer() ? "k" + std::to_string(v->rung) : "peer";
      if (!x.status.ok()) {
        rows.push_back({rung, x.variant, "-", "-", "-", "-", x.status.message});
        continue;
      }
      rows.push_back({rung, x.variant, fmt(x.ms_median, 4), fmt(x.tflops, 1),
                      base ? fmt(x.tflops / base->tflops, 2) + "x" : "-",
                      x.peer.empty() ? (v && v->is_peer() ? "100.0" : "-") : fmt(x.pct_of_peer, 1),
                      v ? v->family : ""});
    }
    std::cout << "ladder on " << dev.name << " (sm_" << dev.sm << "): " << p.shape_string() << ", "
              << to_string(in) << " in, " << to_string(acc) << " acc, " << to_string(out) << " out; median of "
              << o.run.reps << " launches, " << o.run.rounds << " interleaved rounds, " << rep.buffer_sets
              << " rotated buffer sets"
              << idle_note(o.run)
              << "\n"
              << table({"rung", "variant", "ms(med)", "TFLOPS", "vs k1", "%cuBLAS", "mechanism"}, rows);
  }
  for (auto& x : rep.results)
    if (!x.status.ok()) return kFail;
  return kOk;
}

void add_bench(CLI::App& app, int* rc) {
  auto o = std::make_shared<BenchOpts>();
  auto* cmd = app.add_subcommand("bench", "time variants beside cuBLAS (same run, same buffers)");
  add_problem_options(cmd, &o->prob, "81920x256x256", false);
  add_selection_options(cmd, &o->sel);
  cmd->add_option("--reps", o->run.reps, "timed launches per variant")->capture_default_str();
  cmd->add_option("--warmup", o->run.warmup, "warm-up launches per variant")->capture_default_str();
  cmd->add_option("--rounds", o->run.rounds, "interleaved rounds")->capture_default_str();
  cmd->add_option("--idle-ms", o->run.idle_ms,
                  "device idle before each variant's block of launches, every round, so each starts "
                  "from the same power state (0: back to back, sustained)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "machine-readable output");
  auto ladder = std::make_shared<bool>(false);
  cmd->add_flag("--ladder", *ladder,
                "the pipelining ladder for --dtype (default f16): one variant per rung + cuBLAS, "
                "speedup over k1 (seed 004 step 6)");
  cmd->callback([o, rc, ladder] { *rc = *ladder ? run_ladder(*o) : run_bench(*o); });
}

}  // namespace pipegemm::cli
