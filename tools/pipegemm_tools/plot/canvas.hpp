// plot/: the drawing vocabulary of the charts -- a picture with a frame, axes (linear or log10)
// with ticks and grid, polylines, dots, rectangles, text, and a legend at the right -- as plain
// SVG text. `pipegemm trace` draws its timeline with it too (another size: Svg(w, h)).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pipegemm::plot::canvas {

constexpr double kW = 1140, kH = 600;                    // the picture
constexpr double kL = 80, kR = 470, kT = 50, kB = 110;  // margins; the legend sits right
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"};

inline std::string num(double v, int prec = 3) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}

inline std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return o;
}

struct Axis {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double at(double v) const {
    const double a = log ? std::log10(std::max(v, 1e-30)) : v, l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return p0 + (a - l) / (h - l) * (p1 - p0);
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        for (double m : {1.0, 2.0, 5.0})
          if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) t.push_back(d * m);
      return t;
    }
    const double raw = (hi - lo) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) t.push_back(v);
    return t;
  }
};

class Svg {
 public:
  explicit Svg(double w = kW, double h = kH) {
    o_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 "
       << w << " " << h << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
       << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  }
  void line(double x0, double y0, double x1, double y1, const std::string& color, double w = 1, bool dash = false) {
    o_ << "<line x1=\"" << num(x0, 6) << "\" y1=\"" << num(y0, 6) << "\" x2=\"" << num(x1, 6) << "\" y2=\"" << num(y1, 6)
       << "\" stroke=\"" << color << "\" stroke-width=\"" << w << "\"" << (dash ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
  }
  void polyline(const std::vector<std::pair<double, double>>& pts, const std::string& color, bool dash, const std::string& series) {
    o_ << "<polyline class=\"series\" data-series=\"" << esc(series) << "\" fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"1.8\"" << (dash ? " stroke-dasharray=\"6 4\"" : "") << " points=\"";
    for (auto& [x, y] : pts) o_ << num(x, 6) << "," << num(y, 6) << " ";
    o_ << "\"/>\n";
  }
  void dot(double x, double y, const std::string& color, const std::string& title) {
    o_ << "<circle cx=\"" << num(x, 6) << "\" cy=\"" << num(y, 6) << "\" r=\"3\" fill=\"" << color << "\"><title>"
       << esc(title) << "</title></circle>\n";
  }
  // A filled box; `cls` (a class attribute, for tests and styling) and `title` (a tooltip) when given.
  void rect(double x, double y, double w, double h, const std::string& fill, double opacity = 1,
            const std::string& cls = "", const std::string& title = "") {
    o_ << "<rect" << (cls.empty() ? "" : " class=\"" + esc(cls) + "\"") << " x=\"" << num(x, 6) << "\" y=\"" << num(y, 6)
       << "\" width=\"" << num(std::max(w, 0.0), 6) << "\" height=\"" << num(h, 6) << "\" fill=\"" << fill << "\"";
    if (opacity < 1) o_ << " fill-opacity=\"" << num(opacity) << "\"";
    if (title.empty()) o_ << "/>\n";
    else o_ << "><title>" << esc(title) << "</title></rect>\n";
  }
  void text(double x, double y, const std::string& s, const char* anchor = "start", int size = 12, double rotate = 0) {
    o_ << "<text x=\"" << num(x, 6) << "\" y=\"" << num(y, 6) << "\" text-anchor=\"" << anchor << "\" font-size=\"" << size
       << "\"";
    if (rotate != 0) o_ << " transform=\"rotate(" << rotate << " " << num(x, 6) << " " << num(y, 6) << ")\"";
    o_ << ">" << esc(s) << "</text>\n";
  }
  std::string done() { return o_.str() + "</svg>\n"; }

 private:
  std::ostringstream o_;
};

// The frame: axes, ticks, grid, labels, title.
inline void frame(Svg& s, const Axis& x, const Axis& y, const std::string& xlabel, const std::string& ylabel,
           const std::string& title, bool x_ticks = true) {
  s.text(kL, 28, title, "start", 14);
  for (double t : y.ticks()) {
    s.line(kL, y.at(t), kW - kR, y.at(t), "#e6e6e6");
    s.text(kL - 6, y.at(t) + 4, num(t), "end");
  }
  if (x_ticks)
    for (double t : x.ticks()) {
      s.line(x.at(t), kT, x.at(t), kH - kB, "#e6e6e6");
      s.text(x.at(t), kH - kB + 16, num(t), "middle");
    }
  s.line(kL, kH - kB, kW - kR, kH - kB, "black");
  s.line(kL, kT, kL, kH - kB, "black");
  s.text((kL + kW - kR) / 2, kH - kB + (x_ticks ? 40 : 96), xlabel, "middle", 13);
  s.text(22, (kT + kH - kB) / 2, ylabel, "middle", 13, -90);
}

struct Legend {
  double y = kT + 4;
  void add(Svg& s, const std::string& color, bool dash, const std::string& label) {
    s.line(kW - kR + 16, y, kW - kR + 40, y, color, 2.5, dash);
    s.text(kW - kR + 46, y + 4, label, "start", 10);
    y += 17;
  }
};

// Series in first-seen order, ours first, peers last.

}  // namespace pipegemm::plot::canvas
