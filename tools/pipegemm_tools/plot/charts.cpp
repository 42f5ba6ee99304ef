// plot.hpp: the three charts, drawn with plot/canvas.hpp: series in a fixed palette (cuBLAS
// peers grey and dashed), a legend with the numbers behind each series.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "pipegemm/introspect/arch.hpp"
#include "pipegemm_tools/plot.hpp"
#include "pipegemm_tools/plot/canvas.hpp"

namespace pipegemm::plot {
namespace {

using namespace canvas;

bool is_peer(const std::string& v) { return v.rfind("cublas", 0) == 0; }

bool wanted(const Options& o, const std::string& v) {
  if (o.only.empty()) return true;
  for (const std::string& p : o.only)
    if (v.rfind(p, 0) == 0) return true;
  return false;
}

// An axis: linear or log10, data range -> pixel range.
std::vector<std::string> variants_of(const Results& r, const Options& o) {
  std::vector<std::string> ours, peers;
  for (const Row& x : r.rows) {
    if (!x.ok || (!is_peer(x.variant) && !wanted(o, x.variant))) continue;
    auto& v = is_peer(x.variant) ? peers : ours;
    if (std::find(v.begin(), v.end(), x.variant) == v.end()) v.push_back(x.variant);
  }
  ours.insert(ours.end(), peers.begin(), peers.end());
  return ours;
}

std::string color_of(const std::vector<std::string>& vs, const std::string& v) {
  if (is_peer(v)) return v.rfind("cublaslt", 0) == 0 ? "#555555" : "#999999";
  size_t i = 0;
  for (const std::string& x : vs) {
    if (x == v) break;
    if (!is_peer(x)) ++i;
  }
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::string default_title(const Results& r, const std::string& what) {
  std::string t = what;
  const std::string suite = r.meta_value("suite"), gpu = r.meta_value("gpu");
  if (!suite.empty()) t += ", " + suite;
  if (!gpu.empty()) t += ", " + gpu;
  return t;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / double(v.size()));
}

Status ratio_chart(const Results& r, const Options& o, std::string* out, std::vector<std::string>* notes) {
  // Per series, one ratio per shape: best cuBLAS / the kernel (from the report's pct_of_cublas),
  // and, when the report timed auto beside its candidates, auto against the fastest of them.
  std::map<std::string, std::vector<double>> ratios;
  std::vector<std::string> order;
  auto add = [&](const std::string& s, double v) {
    if (!(v > 0)) return;
    if (!ratios.count(s)) order.push_back(s);
    ratios[s].push_back(v);
  };
  std::map<std::string, double> fastest;  // shape -> fastest non-auto time
  std::map<std::string, double> auto_ms;
  for (const Row& x : r.rows) {
    if (!x.ok) continue;
    if (x.variant == "auto") auto_ms[x.shape] = x.ms;
    else fastest[x.shape] = fastest.count(x.shape) ? std::min(fastest[x.shape], x.ms) : x.ms;
  }
  for (const Row& x : r.rows)
    if (x.ok && !is_peer(x.variant) && x.pct_of_cublas > 0 && wanted(o, x.variant))
      add(x.variant + " / best cuBLAS", x.pct_of_cublas / 100.0);
  const std::string vs_fastest = "auto / fastest candidate";
  if (fastest.size() > 1 && wanted(o, "auto"))
    for (auto& [shape, ms] : auto_ms)
      if (fastest.count(shape)) add(vs_fastest, fastest[shape] / ms);
  if (ratios.empty())
    return Status::error(StatusCode::invalid_argument,
                         "ratio: no kernel row has a cuBLAS peer in the same run (bench with the peers, not --no-peers)");
  double lo = 1.0, hi = 1.0;
  for (auto& [s, v] : ratios) {
    std::sort(v.begin(), v.end());
    lo = std::min(lo, v.front());
    hi = std::max(hi, v.back());
  }
  Axis x{0, 1, kL, kW - kR}, y{std::max(0.0, std::floor(lo * 10 - 0.5) / 10), std::ceil(hi * 10 + 0.5) / 10, kH - kB, kT};
  Svg s;
  frame(s, x, y, "shapes, sorted by the ratio (share of the suite)", "ratio (> 1: faster than the peer)",
        o.title.empty() ? default_title(r, "time ratio per shape") : o.title);
  s.line(kL, y.at(1.0), kW - kR, y.at(1.0), "black", 1.2, true);
  Legend lg;
  size_t i = 0;
  for (const std::string& name : order) {
    const std::vector<double>& v = ratios[name];
    const std::string color = name == vs_fastest ? "black" : kPalette[i++ % (sizeof kPalette / sizeof kPalette[0])];
    std::vector<std::pair<double, double>> pts;
    for (size_t j = 0; j < v.size(); ++j)
      pts.emplace_back(x.at(v.size() == 1 ? 0.5 : double(j) / double(v.size() - 1)), y.at(v[j]));
    s.polyline(pts, color, false, name);
    const std::string label = name + ": geomean " + num(geomean(v)) + ", worst " + num(v.front()) + " (" +
                              std::to_string(v.size()) + ")";
    lg.add(s, color, false, label);
    if (notes) notes->push_back(label);
  }
  *out = s.done();
  return Status::success();
}

Status tflops_chart(const Results& r, const Options& o, std::string* out, std::vector<std::string>* notes) {
  std::vector<std::pair<double, std::string>> shapes;  // (FLOP, shape), FLOP order
  std::set<std::string> seen;
  double hi = 0;
  for (const Row& x : r.rows) {
    if (!x.ok) continue;
    hi = std::max(hi, x.tflops);
    if (seen.insert(x.shape).second) shapes.emplace_back(2.0 * double(x.m) * double(x.n) * double(x.k), x.shape);
  }
  std::stable_sort(shapes.begin(), shapes.end());
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < shapes.size(); ++i) index[shapes[i].second] = i;
  const double n = double(std::max<size_t>(shapes.size(), 2) - 1);
  Axis x{0, n, kL + 10, kW - kR - 10}, y{0, hi * 1.08 > 0 ? hi * 1.08 : 1, kH - kB, kT};
  Svg s;
  frame(s, x, y, "shape (in FLOP order)", "TFLOPS (2MNK / median time)",
        o.title.empty() ? default_title(r, "TFLOPS per shape") : o.title, false);
  const size_t every = std::max<size_t>(1, shapes.size() / 40);
  for (size_t i = 0; i < shapes.size(); i += every) s.text(x.at(double(i)), kH - kB + 12, shapes[i].second, "end", 9, -60);
  Legend lg;
  const std::vector<std::string> vs = variants_of(r, o);
  for (const std::string& v : vs) {
    std::vector<std::pair<double, double>> pts;
    double best = 0;
    for (const Row& row : r.rows)
      if (row.ok && row.variant == v) pts.emplace_back(x.at(double(index[row.shape])), y.at(row.tflops)), best = std::max(best, row.tflops);
    std::sort(pts.begin(), pts.end());
    const std::string color = color_of(vs, v);
    s.polyline(pts, color, is_peer(v), v);
    lg.add(s, color, is_peer(v), v + " (max " + num(best) + ")");
    if (notes) notes->push_back(v + ": max " + num(best) + " TFLOPS");
  }
  *out = s.done();
  return Status::success();
}

// The GPU the report names, in the arch table ("NVIDIA H200" -> h200).
bool arch_of(const Results& r, plan::ArchSpec* a) {
  std::string gpu = r.meta_value("gpu");
  if (gpu.empty()) gpu = r.meta_value("device");
  std::string key;
  for (char c : gpu) key += char(std::tolower(static_cast<unsigned char>(c)));
  if (key.rfind("nvidia ", 0) == 0) key = key.substr(7);
  if (key.find(' ') != std::string::npos) key = key.substr(0, key.find(' '));
  return !key.empty() && plan::find_arch(key, a).ok();
}

Status roofline_chart(const Results& r, const Options& o, std::string* out, std::vector<std::string>* notes) {
  plan::ArchSpec a;
  const bool known = arch_of(r, &a);
  double bw = o.bandwidth_gbps, peak = o.peak_tflops;
  std::string types = "f16";
  for (const Row& x : r.rows) if (x.ok && !x.a_type.empty()) { types = x.a_type; break; }
  // The bandwidth ceiling: --bandwidth, else the copy the report measured in its own run (the
  // best of its shapes'), else the arch table's DRAM figure.
  double measured_bw = 0;
  for (const Row& x : r.rows) measured_bw = std::max(measured_bw, x.copy_gbps);
  if (bw <= 0 && measured_bw > 0) bw = measured_bw;
  if (known && bw <= 0) bw = a.dram_gbps;
  if (known && peak <= 0) {
    const int rate = types == "i8" ? a.rates.wgmma_i8 : types == "f32" ? a.rates.ffma_f32
                     : a.rates.wgmma_f16 ? a.rates.wgmma_f16 : a.rates.mma_f16_f32acc;
    peak = double(rate) * a.sm_count * a.sm_clock_mhz * 1e6 / 1e12;
  }
  double ai_lo = 1e30, ai_hi = 0, t_lo = 1e30, t_hi = 0;
  for (const Row& x : r.rows) {
    if (!x.ok || x.gbps <= 0 || x.tflops <= 0) continue;
    const double ai = 1000.0 * x.tflops / x.gbps;
    ai_lo = std::min(ai_lo, ai), ai_hi = std::max(ai_hi, ai), t_lo = std::min(t_lo, x.tflops), t_hi = std::max(t_hi, x.tflops);
  }
  if (ai_hi <= 0) return Status::error(StatusCode::invalid_argument, "roofline: no row with TFLOPS and GB/s");
  if (peak > 0) t_hi = std::max(t_hi, peak);
  Axis x{std::pow(10.0, std::floor(std::log10(ai_lo))), std::pow(10.0, std::ceil(std::log10(ai_hi))), kL, kW - kR, true};
  Axis y{std::pow(10.0, std::floor(std::log10(t_lo))), std::pow(10.0, std::ceil(std::log10(t_hi * 1.01))), kH - kB, kT, true};
  Svg s;
  frame(s, x, y, "arithmetic intensity, FLOP per byte of A + B + D", "TFLOPS",
        o.title.empty() ? default_title(r, "roofline") : o.title);
  Legend lg;
  if (bw > 0 && peak > 0) {
    // min(bandwidth x intensity, peak), drawn across the axis in log steps.
    std::vector<std::pair<double, double>> roof;
    for (int i = 0; i <= 200; ++i) {
      const double ai = x.lo * std::pow(x.hi / x.lo, i / 200.0), t = std::min(bw * ai / 1000.0, peak);
      if (t >= y.lo) roof.emplace_back(x.at(ai), y.at(t));
    }
    s.polyline(roof, "black", false, "ceiling");
    const std::string bw_from = o.bandwidth_gbps > 0 ? ""
                                : measured_bw > 0 ? " (device copy, same run)"
                                : known ? " (" + a.key + " table)" : "";
    const std::string peak_from = o.peak_tflops > 0 || !known ? "" : " (" + a.key + " table)";
    const std::string label = "ceiling: " + num(bw, 4) + " GB/s" + bw_from + ", " + num(peak, 4) + " TFLOPS" + peak_from;
    lg.add(s, "black", false, label);
    if (notes) notes->push_back(label + ", ridge at " + num(1000.0 * peak / bw) + " FLOP/byte");
  }
  const std::vector<std::string> vs = variants_of(r, o);
  for (const std::string& v : vs) {
    const std::string color = color_of(vs, v);
    for (const Row& row : r.rows)
      if (row.ok && row.variant == v && row.gbps > 0 && row.tflops > 0)
        s.dot(x.at(1000.0 * row.tflops / row.gbps), y.at(row.tflops), color,
              v + " " + row.shape + ": " + num(row.tflops) + " TFLOPS, " + num(row.gbps, 4) + " GB/s");
    lg.add(s, color, is_peer(v), v);
  }
  *out = s.done();
  return Status::success();
}

}  // namespace

Status render_svg(const Results& r, const Options& o, std::string* svg, std::vector<std::string>* notes) {
  switch (o.kind) {
    case Kind::ratio: return ratio_chart(r, o, svg, notes);
    case Kind::tflops: return tflops_chart(r, o, svg, notes);
    case Kind::roofline: return roofline_chart(r, o, svg, notes);
  }
  return Status::error(StatusCode::invalid_argument, "unknown chart");
}

}  // namespace pipegemm::plot
