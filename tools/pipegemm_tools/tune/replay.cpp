// `pipegemm tune --replay` (tune.hpp): auto on shapes it has not seen, from the timings a tune
// table holds -- each entry left out in turn, or another table's shapes against it. No GPU.
#include <cctype>
#include <cmath>
#include <filesystem>

#include "pipegemm_tools/tune.hpp"

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

// A plain entry's problem as tune timed it (D row-major, cudaMalloc-aligned pointers); false for
// a batch or an epilogue (not rebuilt from the key) or an unreadable key.
bool entry_problem(const TuneEntry& e, Problem* out) {
  if (e.key.bucket.find(".b") != std::string::npos || e.key.bucket.find(".e") != std::string::npos) return false;
  auto fields = [](const std::string& s) {  // "a,b,c" -> {"a", "b", "c"}
    std::vector<std::string> f(1);
    for (char c : s) {
      if (c == ',') f.emplace_back();
      else f.back().push_back(c);
    }
    return f;
  };
  const std::vector<std::string> t = fields(e.key.types), l = fields(e.key.layouts);
  Problem p;
  if (t.size() != 4 || l.size() != 3 || !parse_shape(e.shape, &p.m, &p.n, &p.k) || !parse_dtype(t[0], &p.a_type) ||
      !parse_dtype(t[1], &p.b_type) || !parse_dtype(t[2], &p.acc_type) || !parse_dtype(t[3], &p.d_type))
    return false;
  Layout* layouts[3] = {&p.a_layout, &p.b_layout, &p.d_layout};
  for (int i = 0; i < 3; ++i) {
    if (l[i] != "row" && l[i] != "col") return false;
    *layouts[i] = l[i] == "row" ? Layout::RowMajor : Layout::ColMajor;
  }
  *out = p.normalized();
  return tune_key(*out, e.key.gpu, nullptr, nullptr, nullptr).bucket == e.key.bucket;
}

}  // namespace

Status replay_tune_table(const std::string& path, const std::string& targets_path, ReplayReport* out) {
  if (path.empty()) return bad("no table: give --output FILE or set PIPEGEMM_TUNE_CACHE (HOME is not set)");
  TuneTable table, targets;
  for (const std::string* f : {&path, &targets_path}) {
    if (f->empty()) continue;
    if (!std::filesystem::exists(*f)) return bad(*f + ": no such tune table");
    Status s = TuneTable::load(*f, f == &path ? &table : &targets);
    if (!s.ok()) return s;
  }
  ReplayReport rep;
  rep.path = path;
  rep.targets = targets_path;
  const TuneTables none;
  const auto& all = table.entries();
  const bool apart = !targets_path.empty();  // the targets against the whole table, none left out
  TuneTables whole;
  whole.tables.push_back(table);
  const auto& shapes = apart ? targets.entries() : all;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const TuneEntry& e = shapes[i];
    Problem p;
    plan::ArchSpec arch;
    bool known_gpu = false;  // the table entry whose key is in CUDA's name ("NVIDIA H200" -> h200)
    std::string gpu = e.key.gpu;
    for (char& c : gpu) c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const plan::ArchSpec& a : plan::arch_table())
      if (gpu.find(a.key) != std::string::npos) arch = a, known_gpu = true;
    if (!known_gpu || e.timed.empty() || !entry_problem(e, &p)) {
      ++rep.skipped;
      continue;
    }
    if (rep.gpu.empty()) rep.gpu = e.key.gpu;
    const DeviceInfo dev = plan::device_like(arch, e.key.gpu);
    TuneTables rest;
    if (!apart) {
      rest.tables.resize(1);
      rest.tables[0].source = path;
      for (size_t j = 0; j < all.size(); ++j)
        if (j != i) rest.tables[0].put(all[j]);
    }
    ReplayRow row;
    row.shape = e.shape;
    row.types = types_of(p);
    for (const auto& [name, us] : e.timed) {
      if (row.fastest.empty() || us < row.fastest_us) row.fastest = name, row.fastest_us = us;
      const Variant* v = find_variant(name);
      if (v && v->is_peer() && (row.peer_us == 0 || us < row.peer_us)) row.peer_us = us;
    }
    const Choice c = choose_auto(p, dev, Operands{}, apart ? whole : rest);
    const Choice m = choose_auto(p, dev, Operands{}, none);
    if (c.variant) row.pick = c.variant->name, row.source = c.source, row.pick_us = e.timed_us(row.pick);
    if (m.variant) row.model = m.variant->name, row.model_us = e.timed_us(row.model);
    rep.rows.push_back(std::move(row));
  }
  *out = std::move(rep);
  return {};
}

report::Document document(const ReplayReport& r) {
  using report::Cell;
  using report::fixed;
  report::Document d;
  d.title = "tune --replay " + r.path + " (" + r.gpu + "): " +
            (r.targets.empty() ? "each entry left out in turn, auto chooses from the rest"
                               : "the shapes of " + r.targets + ", auto chooses from the table");
  auto us = [](double x) { return Cell(x, x > 0 ? fixed(x, 2) : "untimed"); };
  report::Table& t = d.section().table(
      "rows", "",
      {{"shape", "shape"}, {"types", "types"}, {"fastest", "fastest"}, {"fastest_us", "us"}, {"peer_us", "best cuBLAS us"},
       {"pick", "auto without it"}, {"source", "by"}, {"pick_us", "us"}, {"model", "the model alone"},
       {"model_us", "us"}});
  struct Tally { double logs_fast = 0, logs_peer = 0; int n = 0, np = 0, untimed = 0; double worst = 1e9; std::string at; };
  Tally pick, model, by_neighbours;
  auto add = [](Tally& x, const ReplayRow& row, double t) {
    if (t <= 0) { ++x.untimed; return; }
    x.logs_fast += std::log(row.fastest_us / t), ++x.n;
    if (row.peer_us > 0) {
      x.logs_peer += std::log(row.peer_us / t), ++x.np;
      if (row.peer_us / t < x.worst) x.worst = row.peer_us / t, x.at = row.shape + " " + row.types;
    }
  };
  for (const ReplayRow& x : r.rows) {
    t.add({x.shape, x.types, x.fastest, us(x.fastest_us), us(x.peer_us), x.pick, x.source, us(x.pick_us), x.model,
           us(x.model_us)});
    add(pick, x, x.pick_us);
    add(model, x, x.model_us);
    if (x.source == "neighbours") add(by_neighbours, x, x.pick_us);
  }
  report::Section& s = d.section("", false);
  auto line = [&](const std::string& label, const std::string& key, const Tally& x) {
    if (!x.n) return;
    const double gf = std::exp(x.logs_fast / x.n), gp = x.np ? std::exp(x.logs_peer / x.np) : 0;
    s.data(key + ".geomean_of_fastest", gf).data(key + ".geomean_vs_best_cublas", gp).data(key + ".shapes", x.n);
    s.line(label, "geomean " + fixed(gf, 3) + " of the fastest, " + fixed(gp, 3) + " of the best cuBLAS over " +
                      std::to_string(x.n) + " shapes; worst " + fixed(x.worst, 3) + " at " + x.at +
                      (x.untimed ? "; " + std::to_string(x.untimed) + " picks untimed there" : ""));
  };
  line(r.targets.empty() ? "auto without the entry" : "auto with the table", "auto", pick);
  line("  of which by neighbours", "neighbours", by_neighbours);
  line("the model alone", "model", model);
  s.data("skipped", r.skipped);
  if (r.skipped) s.line("skipped", std::to_string(r.skipped) + " entries (a batch or an epilogue, or a GPU the table does not know)");
  return d;
}

}  // namespace pipegemm
