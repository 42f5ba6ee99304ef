// Suite files, shape ranges and the per-kernel summary (bench_suite.hpp): CPU only.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench_suite.hpp"
#include "pipegemm_tools/reports.hpp"  // semantics_text

namespace pipegemm {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

bool parse_int(std::string_view s, int64_t* v) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> split(std::string_view s, char c) {
  std::vector<std::string_view> out;
  size_t at = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == c) out.push_back(s.substr(at, i - at)), at = i + 1;
  return out;
}

constexpr int64_t kMaxDim = int64_t(1) << 31;
constexpr size_t kMaxShapes = 100000;

}  // namespace

std::string SuiteShape::shape() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

Status parse_suite(std::string_view text, const std::string& where, std::vector<SuiteShape>* out) {
  out->clear();
  std::istringstream in{std::string(text)};
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    const std::string at = where + ":" + std::to_string(no) + ": ";
    // Past the shape and the dtype column: --flag value pairs.
    size_t first_flag = 1;
    while (first_flag < w.size() && w[first_flag].rfind("--", 0) != 0) ++first_flag;
    if (first_flag > 2) return bad(at + "expected 'MxNxK [dtype] [--flag value ...]', got '" + line + "'");
    SuiteShape s;
    static const char* const kFlags[] = {"--layout", "--d-layout", "--alpha", "--beta", "--c", "--c-dtype",
                                         "--ldc", "--batch", "--broadcast", "--bias", "--bias-dtype", "--act"};
    for (size_t i = first_flag; i < w.size(); i += 2) {
      const bool known = std::find(std::begin(kFlags), std::end(kFlags), w[i]) != std::end(kFlags);
      if (!known) return bad(at + "unknown flag '" + w[i] + "' (a suite line takes the semantics flags of bench)");
      if (i + 1 >= w.size() || w[i + 1].rfind("--", 0) == 0) return bad(at + "flag '" + w[i] + "' needs a value");
      s.flags.emplace_back(w[i], w[i + 1]);
    }
    w.resize(first_flag);
    s.line = no;
    const auto d = split(w[0], 'x');
    if (d.size() != 3 || !parse_int(d[0], &s.m) || !parse_int(d[1], &s.n) || !parse_int(d[2], &s.k) || s.m <= 0 ||
        s.n <= 0 || s.k <= 0 || s.m >= kMaxDim || s.n >= kMaxDim || s.k >= kMaxDim)
      return bad(at + "bad shape '" + w[0] + "' (expected MxNxK, positive, e.g. 4096x4096x4096)");
    if (w.size() == 2) {
      DType t;
      if (!parse_dtype(w[1], &t) || t == DType::i32)
        return bad(at + "bad dtype '" + w[1] + "' (f16, bf16, i8, f32)");
      s.dtype = w[1];
    }
    out->push_back(std::move(s));
  }
  if (out->empty()) return bad(where + ": no shapes (one 'MxNxK [dtype]' per line)");
  return {};
}

Status load_suite(const std::string& path, std::vector<SuiteShape>* out) {
  std::ifstream f(path);
  if (!f) return bad("cannot read suite file '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_suite(ss.str(), path, out);
}

bool is_shape_range(std::string_view spec) { return spec.find(':') != std::string_view::npos; }

Status expand_shape_ranges(std::string_view spec, std::vector<SuiteShape>* out) {
  out->clear();
  const std::string why = "bad --shape '" + std::string(spec) +
                          "' (expected MxNxK, each dimension N or start:stop:step, e.g. 1024:8192:1024x4096x4096)";
  const auto d = split(spec, 'x');
  if (d.size() != 3) return bad(why);
  std::vector<int64_t> dims[3];
  size_t total = 1;
  for (int i = 0; i < 3; ++i) {
    const auto r = split(d[size_t(i)], ':');
    int64_t a = 0, b = 0, step = 1;
    if (r.size() == 1) {
      if (!parse_int(r[0], &a)) return bad(why);
      b = a;
    } else if (r.size() != 3 || !parse_int(r[0], &a) || !parse_int(r[1], &b) || !parse_int(r[2], &step)) {
      return bad(why);
    }
    if (a <= 0 || b >= kMaxDim) return bad(why + ": sizes must be positive and < 2^31");
    if (step <= 0 || b < a) return bad(why + ": a range needs start <= stop and step > 0");
    for (int64_t x = a; x <= b; x += step) dims[i].push_back(x);
    total *= dims[i].size();
    if (total > kMaxShapes) return bad(why + ": more than " + std::to_string(kMaxShapes) + " shapes");
  }
  for (int64_t m : dims[0])
    for (int64_t n : dims[1])
      for (int64_t k : dims[2]) {
        SuiteShape s;
        s.m = m, s.n = n, s.k = k;
        out->push_back(s);
      }
  return {};
}

std::vector<KernelSummary> suite_summary(const std::vector<BenchReport>& runs) {
  std::vector<KernelSummary> out;
  std::vector<double> logs;
  for (const BenchReport& b : runs)
    for (const BenchResult& x : b.results) {
      const Variant* v = find_variant(x.variant);
      if (v && v->is_peer()) continue;
      size_t i = 0;
      while (i < out.size() && out[i].variant != x.variant) ++i;
      if (i == out.size()) {
        out.emplace_back();
        out.back().variant = x.variant;
        logs.push_back(0);
      }
      if (!x.status.ok() || x.peer.empty() || x.pct_of_peer <= 0) continue;
      KernelSummary& s = out[i];
      const double ratio = x.pct_of_peer / 100.0;
      logs[i] += std::log(ratio);
      if (s.shapes == 0 || ratio < s.worst) s.worst = ratio, s.worst_shape = b.problem.shape_string(), s.worst_peer = x.peer;
      ++s.shapes;
    }
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].shapes > 0) out[i].geomean = std::exp(logs[i] / out[i].shapes);
  return out;
}

std::vector<SemanticsCost> semantics_costs(const std::vector<BenchReport>& runs) {
  struct Group {
    SemanticsCost c;
    std::vector<double> ms;
  };
  std::vector<Group> plain, with;  // plain: semantics ""
  for (const BenchReport& b : runs) {
    const std::string sem = semantics_text(b.problem, b.c_in_place);
    const std::string types = std::string(to_string(b.problem.a_type)) + "/" + to_string(b.problem.d_type);
    std::vector<Group>& into = sem.empty() ? plain : with;
    for (const BenchResult& x : b.results) {
      if (!x.status.ok() || x.ms_median <= 0) continue;
      auto g = std::find_if(into.begin(), into.end(), [&](const Group& y) {
        return y.c.variant == x.variant && y.c.shape == b.problem.shape_string() && y.c.types == types &&
               y.c.semantics == sem;
      });
      if (g == into.end()) {
        into.push_back({{x.variant, b.problem.shape_string(), types, sem}, {}});
        g = into.end() - 1;
      }
      g->ms.push_back(x.ms_median);
    }
  }
  std::vector<SemanticsCost> out;
  for (Group& g : with) {
    auto base = std::find_if(plain.begin(), plain.end(), [&](const Group& y) {
      return y.c.variant == g.c.variant && y.c.shape == g.c.shape && y.c.types == g.c.types;
    });
    if (base == plain.end()) continue;
    const double ref = median_of(base->ms);
    std::vector<double> r;
    for (double ms : g.ms) r.push_back(ms / ref);
    g.c.runs = int(r.size());
    g.c.median = median_of(r);
    g.c.lowest = *std::min_element(r.begin(), r.end());
    g.c.highest = *std::max_element(r.begin(), r.end());
    out.push_back(g.c);
  }
  return out;
}

AutoSummary auto_summary(const std::vector<BenchReport>& runs) {
  AutoSummary a;
  double logs = 0;
  for (const BenchReport& b : runs) {
    const BenchResult* au = nullptr;
    const BenchResult* fastest = nullptr;
    for (const BenchResult& x : b.results) {
      if (!x.status.ok() || x.ms_median <= 0) continue;
      if (x.variant == "auto") au = &x;
      else if (!fastest || x.ms_median < fastest->ms_median) fastest = &x;
    }
    if (!au || !fastest) continue;
    const double ratio = fastest->ms_median / au->ms_median;
    logs += std::log(ratio);
    if (a.shapes == 0 || ratio < a.worst) a.worst = ratio, a.worst_shape = b.problem.shape_string(), a.worst_fastest = fastest->variant;
    a.below_095 += ratio < 0.95;
    ++a.shapes;
  }
  if (a.shapes) a.geomean = std::exp(logs / a.shapes);
  return a;
}

namespace {

std::string shell_word(const std::string& w) {
  const auto plain = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-+=.,:/@%^").find(c) != std::string_view::npos;
  };
  if (!w.empty() && std::all_of(w.begin(), w.end(), plain)) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out;
  auto add = [&](const std::string& w) { out += (out.empty() ? "" : " ") + w; };
  for (const auto& [name, value] : env) add(name + "=" + shell_word(value));
  for (const std::string& a : argv) add(shell_word(a));
  return out;
}

}  // namespace pipegemm
