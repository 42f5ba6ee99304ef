// `pipegemm tune` (tune.hpp): time the candidates of each shape, keep the fastest in the cache.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "pipegemm/detail/timed_candidates.hpp"
#include "pipegemm_tools/tune.hpp"

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

}  // namespace

std::string types_of(const Problem& p) {
  return std::string(to_string(p.a_type)) + "/" + to_string(p.acc_type) + "/" + to_string(p.d_type);
}

std::vector<const Variant*> tune_candidates(const Problem& in, const DeviceInfo& dev, double prune,
                                            std::vector<std::string>* pruned, bool c_in_place) {
  Operands y;
  const Problem p = as_called(in, probe_operands(in, 0, c_in_place), &y);  // D row-major, as the variants see it
  return detail::timed_candidates(p, y, dev, prune, pruned);
}

Status repick_tune_table(const std::string& path, std::vector<std::string>* changed) {
  if (path.empty()) return bad("no cache path: give --output FILE or set PIPEGEMM_TUNE_CACHE (HOME is not set)");
  if (!std::filesystem::exists(path)) return bad(path + ": no such tune table");
  TuneTable table;
  Status s = TuneTable::load(path, &table);
  if (!s.ok()) return s;
  TuneTable out = table;
  int moved = 0;
  for (TuneEntry e : table.entries()) {
    const std::string best = pick_best(e.timed);
    if (best.empty() || best == e.best) continue;
    if (changed) changed->push_back(e.shape + " " + e.key.types + ": " + e.best + " -> " + best);
    e.best = best;
    e.best_us = e.timed_us(best);
    out.put(std::move(e));
    ++moved;
  }
  return moved ? out.save(path) : Status::success();
}

Status run_tune(const TuneRequest& r, TuneReport* out) {
  std::vector<ShapeRequest> shapes;
  Status s = request_shapes(r.problem, r.suite, &shapes);
  if (!s.ok()) return s;
  if (r.run.reps < 1 || r.run.warmup < 0 || r.run.idle_ms < 0) return bad("--reps must be >= 1, --warmup and --idle-ms >= 0");
  if (r.prune < 0) return bad("--prune must be >= 0 (0: time every candidate)");
  const std::string path = r.output.empty() ? default_tune_output() : r.output;
  if (path.empty()) return bad("no cache path: give --output FILE or set PIPEGEMM_TUNE_CACHE (HOME is not set)");
  TuneTable table;
  if (!(s = TuneTable::load(path, &table)).ok()) return bad(s.message + " (not overwritten; move it away or give --output)");
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, "pipegemm tune needs a CUDA GPU (sm_80 or newer): " + dev.why_absent);
  if (dev.sm < 80) return bad("device " + dev.name + " is sm_" + std::to_string(dev.sm) + "; pipegemm needs sm_80+");
  std::error_code ec;
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);

  TuneReport rep;
  rep.device = dev.name;
  rep.output = path;
  rep.env = bench_environment();
  rep.run = r.run;
  rep.prune = r.prune;
  BenchOptions opt = r.run;
  opt.measure_copy = false;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const TuneTables none;  // the model's own pick: no tables
  for (size_t i = 0; i < shapes.size(); ++i) {
    Problem p;
    typed_problem(shapes[i].problem, shapes[i].types, &p);
    p = p.normalized();
    if (r.progress) r.progress(int(i + 1), int(shapes.size()), p.shape_string(), seconds());
    TuneRow row;
    row.shape = p.shape_string();
    row.types = types_of(p);
    const bool in_place = shapes[i].problem.c_in_place() && p.reads_c();
    Operands y;  // the key auto looks up: the problem as called (D row-major), cudaMalloc's alignment
    const Problem called = as_called(p, probe_operands(p, 0, in_place), &y);
    const TuneKey key = tune_key(called, dev.name, y.a, y.b, y.d);
    row.bucket = key.bucket;
    if (const TuneEntry* e = table.find(key); e && !r.force) {
      row.status = "cached";
      row.best = e->best, row.best_us = e->best_us;
      row.message = "bucket already tuned at " + e->shape;
      ++rep.cached;
      rep.rows.push_back(std::move(row));
      continue;
    }
    std::vector<std::string> pruned;
    const std::vector<const Variant*> cands = tune_candidates(p, dev, r.prune, &pruned, in_place);
    BenchReport b;
    BenchOptions shape_opt = opt;
    shape_opt.c_in_place = in_place;
    s = cands.empty() ? Status::error(StatusCode::not_supported, "no variant accepts this problem")
                      : bench_variants(p, cands, shape_opt, &b);
    std::vector<std::pair<std::string, double>> timed;
    for (const BenchResult& x : b.results)
      if (x.status.ok() && x.ms_median > 0) timed.emplace_back(x.variant, x.ms_median * 1e3);
    std::stable_sort(timed.begin(), timed.end(), [](auto& x, auto& y) { return x.second < y.second; });
    if (!s.ok() || timed.empty()) {
      row.status = "failed";
      row.message = !s.ok() ? s.message : "no candidate ran";
      ++rep.failed;
      rep.rows.push_back(std::move(row));
      continue;
    }
    TuneEntry e;
    e.key = key;
    e.shape = row.shape;
    e.best = pick_best(timed);
    e.timed = timed;
    e.best_us = e.timed_us(e.best);
    e.pruned = pruned;
    for (const BenchResult& x : b.results)  // the peer's algorithm, so a load reruns what was timed
      if (x.variant == e.best && !x.prepared.empty()) e.lt_algo = x.prepared;
    e.date = rep.env.date;
    e.pipegemm = rep.env.pipegemm;
    table.put(e);
    if (!(s = table.save(path)).ok()) return s;
    row.status = "timed";
    row.best = e.best, row.best_us = e.best_us;
    for (auto& [name, us] : timed)
      if (name != e.best && row.next.empty()) row.next = name, row.next_us = us;
    if (const Variant* m = choose_auto(called, dev, y, none).variant) {
      row.model_pick = m->name;
      row.model_pick_us = e.timed_us(m->name);
    }
    row.timed = int(timed.size());
    row.pruned = int(pruned.size());
    ++rep.timed;
    rep.rows.push_back(std::move(row));
  }
  rep.seconds = seconds();
  reload_tune_tables();  // this process's auto sees the new entries
  *out = std::move(rep);
  return {};
}

report::Document document(const TuneReport& r) {
  using report::Cell;
  using report::fixed;
  report::Document d;
  d.title = "tune on " + r.device + ": " + std::to_string(r.rows.size()) + " shapes -> " + r.output + "; median of " +
            std::to_string(r.run.reps) + " launches, " + std::to_string(r.run.rounds) + " rounds; candidates the model " +
            (r.prune > 0 ? "puts above " + fixed(r.prune, 1) + "x its fastest are not timed" : "does not prune");
  report::Section& head = d.section("", false);
  head.data("device", r.device).data("output", r.output).data("environment.date", r.env.date);
  head.data("environment.driver", r.env.driver).data("environment.cublas", r.env.cublas);
  head.data("environment.pipegemm", r.env.pipegemm).data("options.prune", r.prune);
  report::Table& t = d.section().table(
      "rows", "",
      {{"shape", "shape"}, {"types", "types"}, {"bucket", "bucket"}, {"status", "status"}, {"best", "fastest"},
       {"best_us", "us"}, {"next", "next"}, {"next_us", "us"}, {"model_pick", "model's pick"},
       {"model_pick_us", "us"}, {"timed", "timed"}, {"pruned", "pruned"}, {"message", "", report::Show::data}});
  double logs = 0;
  int n = 0;
  for (const TuneRow& x : r.rows) {
    const bool t_ok = x.status == "timed";
    t.add({x.shape, x.types, x.bucket, x.status, Cell(x.best, x.best.empty() ? "-" : x.best),
           Cell(x.best_us, x.best_us > 0 ? fixed(x.best_us, 2) : "-"), Cell(x.next, x.next.empty() ? "-" : x.next),
           Cell(x.next_us, x.next_us > 0 ? fixed(x.next_us, 2) : "-"),
           Cell(x.model_pick, x.model_pick.empty() ? "-" : x.model_pick),
           Cell(x.model_pick_us, x.model_pick_us > 0 ? fixed(x.model_pick_us, 2) : "-"), t_ok ? Cell(x.timed) : Cell(nullptr, "-"),
           t_ok ? Cell(x.pruned) : Cell(nullptr, "-"), x.message});
    if (t_ok && x.model_pick_us > 0) logs += std::log(x.best_us / x.model_pick_us), ++n;
  }
  report::Section& s = d.section("", false);
  s.data("timed", r.timed).data("cached", r.cached).data("failed", r.failed).data("seconds", r.seconds);
  s.line("done", std::to_string(r.timed) + " timed, " + std::to_string(r.cached) + " already in the cache, " +
                     std::to_string(r.failed) + " failed, " + fixed(r.seconds, 1) + " s");
  if (n) {
    s.data("model_vs_tuned_geomean", std::exp(logs / n));
    s.line("the model alone", "geomean " + fixed(std::exp(logs / n), 3) + " of the tuned time over " + std::to_string(n) +
                                  " shapes (fastest / the model's pick)");
  }
  return d;
}

}  // namespace pipegemm
