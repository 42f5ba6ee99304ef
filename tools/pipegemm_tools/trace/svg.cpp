// trace.hpp: the SVG timeline, in the seeds' picture (000: "G->S, S->R, MMA" per k_tile): per CTA
// of one SM, each lane's loads (G->S: issue to stage full) and its MMAs, coloured by ring slot,
// with the MMA row's idle gaps shaded. S->R (ldmatrix) runs inside the MMA spans: the ladder
// issues k_block+1's ldmatrix under k_block's MMAs, so it has no row of its own.
#include <algorithm>
#include <map>
#include <set>

#include "pipegemm_tools/plot/canvas.hpp"
#include "pipegemm_tools/trace.hpp"

namespace pipegemm::trace {
namespace {

using namespace plot::canvas;

constexpr double kWidth = 1140, kLeft = 210, kRight = 24, kTop = 128, kBottom = 48;
constexpr double kMmaRow = 14, kTrack = 6, kGap = 3, kGroupGap = 10;
const char* const kEpilogue = "#7f7f7f";
const char* const kBubble = "#f4b6b6";
const char* const kWait = "#d9d9d9";

std::string slot_color(int slot) {
  const int n = int(sizeof kPalette / sizeof kPalette[0]);
  return slot < 0 ? "#444444" : kPalette[slot % n];
}

std::string us(double ns, int prec = 3) { return num(ns / 1e3, prec) + " us"; }

std::string pct(double v) { return num(v, 3) + "%"; }

// The lanes to draw: those of SM `sm`, CTAs in the order they start (at most max_ctas), a CTA's
// producer first, then its consumers, then its warps.
std::vector<const Lane*> pick(const Timeline& t, const SvgOptions& o, int sm, int* ctas_on_sm) {
  std::map<uint32_t, double> start;
  for (const Lane& l : t.lanes)
    if (l.sm == sm)
      for (const Span& s : l.spans) start[l.cta] = start.count(l.cta) ? std::min(start[l.cta], s.t0) : s.t0;
  std::vector<std::pair<double, uint32_t>> order;
  for (auto& [cta, t0] : start) order.push_back({t0, cta});
  std::sort(order.begin(), order.end());
  *ctas_on_sm = int(order.size());
  if (int(order.size()) > o.max_ctas) order.resize(size_t(std::max(o.max_ctas, 0)));
  std::vector<const Lane*> out;
  for (auto& [t0, cta] : order) {
    std::vector<const Lane*> mine;
    for (const Lane& l : t.lanes)
      if (l.sm == sm && l.cta == cta && !l.spans.empty() && (l.role != Role::warp || o.all_warps || l.lane == 0))
        mine.push_back(&l);
    auto rank = [](const Lane* l) { return std::make_pair(l->role == Role::warp ? 3 : int(l->role), l->lane); };
    std::stable_sort(mine.begin(), mine.end(), [&](const Lane* a, const Lane* b) { return rank(a) < rank(b); });
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

double load_row_height(const Lane& l) { return l.tracks(SpanKind::load) * kTrack; }
bool has_mma_row(const Lane& l) { return l.tracks(SpanKind::mma) + l.tracks(SpanKind::epilogue) + l.tracks(SpanKind::wait) > 0; }

}  // namespace

std::string timeline_svg(const Meta& m, const Timeline& t, const Summary& s, const SvgOptions& o) {
  int sm = o.sm;
  if (sm < 0)
    for (const Lane& l : t.lanes) sm = sm < 0 ? l.sm : std::min(sm, l.sm);
  int ctas_on_sm = 0;
  const std::vector<const Lane*> lanes = pick(t, o, sm, &ctas_on_sm);
  double height = kTop + kBottom;
  std::set<uint32_t> groups;
  for (const Lane* l : lanes) {
    height += (load_row_height(*l) > 0 ? load_row_height(*l) + kGap : 0) + (has_mma_row(*l) ? kMmaRow + kGap : 0);
    if (groups.insert(l->cta).second) height += kGroupGap;
  }
  double t0 = 0, t1 = 0;
  bool any = false;
  for (const Lane* l : lanes)
    for (const Span& sp : l->spans) {
      t0 = any ? std::min(t0, sp.t0) : sp.t0;
      t1 = any ? std::max(t1, sp.t1) : sp.t1;
      any = true;
    }
  if (!(t1 > t0)) t1 = t0 + 1;
  Axis x{t0 / 1e3, t1 / 1e3, kLeft, kWidth - kRight};  // microseconds
  Svg svg(kWidth, height);

  svg.text(12, 22, "pipegemm trace: " + m.variant + " on " + m.shape + (m.device.empty() ? "" : " (" + m.device + ")") +
                       ", SM " + std::to_string(sm) + ": " + std::to_string(std::min(ctas_on_sm, o.max_ctas)) + " of its " +
                       std::to_string(ctas_on_sm) + " CTAs",
           "start", 14);
  svg.text(12, 42, "MMA busy with a load in flight " + pct(s.overlap_pct) + "; loads under an MMA " + pct(s.hidden_load_pct) +
                       "; bubbles " + us(s.bubble_ns) + " per MMA lane (" + pct(s.bubble_pct) + " of its MMA window)");
  svg.text(12, 58, "stages in flight " + num(s.stages_avg) + " avg, " + num(s.stages_max) + " max (ring of " +
                       std::to_string(m.stages) + "); load issue -> stage full " + us(s.load_ns) + " avg; epilogue " +
                       us(s.epilogue_ns) + " avg");
  svg.text(12, 74, "over " + std::to_string(s.sms) + " SMs, " + std::to_string(s.ctas) + " CTAs, " + std::to_string(s.lanes) +
                       " lanes; clock " + num(m.clock_ghz) + " GHz; " + std::to_string(m.records) + " records, " +
                       std::to_string(m.dropped) + " dropped",
           "start", 11);
  // Legend: the slots, then the other marks.
  double lx = 12;
  for (int i = 0; i < std::max(m.stages, 1); ++i) {
    svg.rect(lx, 84, 14, 10, slot_color(i));
    svg.text(lx + 18, 93, "slot " + std::to_string(i), "start", 11);
    lx += 62;
  }
  bool waits = false;
  for (const Lane* l : lanes) waits |= l->tracks(SpanKind::wait) > 0;
  for (auto [color, label] : {std::pair<const char*, const char*>{kEpilogue, "epilogue"}, {kBubble, "bubble (MMA lane idle)"},
                              {kWait, "waiting for a stage"}}) {
    if (color == kWait && !waits) continue;
    svg.rect(lx, 84, 14, 10, color);
    svg.text(lx + 18, 93, label, "start", 11);
    lx += 40 + 6.5 * double(std::string(label).size());
  }
  svg.text(12, 112, "G\u2192S: each load from issue to stage full, one thin bar per load in flight; MMA: the k_tiles' MMAs "
                    "(mma.sync: issued; wgmma: issue to retired), in their slot's colour; dashed: a tile starts", "start", 11);

  for (double tick : x.ticks()) {
    svg.line(x.at(tick), kTop - 6, x.at(tick), height - kBottom + 4, "#eeeeee");
    svg.text(x.at(tick), height - kBottom + 18, num(tick), "middle", 11);
  }
  svg.text((kLeft + kWidth - kRight) / 2, height - 10, "time (us, from the run's first stamp)", "middle", 12);

  double y = kTop;
  uint32_t cta = lanes.empty() ? 0 : lanes.front()->cta + 1;
  for (const Lane* l : lanes) {
    if (l->cta != cta) y += kGroupGap, cta = l->cta;
    const double y_lane = y;
    if (double h = load_row_height(*l); h > 0) {
      svg.text(kLeft - 8, y + h / 2 + 4, l->name() + " G\u2192S", "end", 11);
      for (const Span& sp : l->spans)
        if (sp.kind == SpanKind::load)
          svg.rect(x.at(sp.t0 / 1e3), y + sp.track * kTrack, x.at(sp.t1 / 1e3) - x.at(sp.t0 / 1e3), kTrack - 1,
                   slot_color(sp.slot), 0.6, "load",
                   "load k_tile " + std::to_string(sp.k_tile) + " tile " + std::to_string(sp.tile) + ", " + us(sp.t1 - sp.t0));
      y += h + kGap;
    }
    if (has_mma_row(*l)) {
      svg.text(kLeft - 8, y + kMmaRow / 2 + 4, l->name() + " MMA", "end", 11);
      std::vector<std::pair<double, double>> mma;
      for (const Span& sp : l->spans)
        if (sp.kind == SpanKind::mma) mma.push_back({sp.t0, sp.t1});
      std::sort(mma.begin(), mma.end());
      double reach = mma.empty() ? 0 : mma.front().second;
      for (size_t i = 1; i < mma.size(); ++i) {  // the gaps of the MMA spans' union
        if (mma[i].first > reach)
          svg.rect(x.at(reach / 1e3), y, x.at(mma[i].first / 1e3) - x.at(reach / 1e3), kMmaRow, kBubble, 1, "bubble",
                   "idle " + us(mma[i].first - reach));
        reach = std::max(reach, mma[i].second);
      }
      for (const Span& sp : l->spans) {
        if (sp.kind == SpanKind::load) continue;
        const bool mm = sp.kind == SpanKind::mma;
        const std::string color = mm ? slot_color(sp.slot) : sp.kind == SpanKind::epilogue ? kEpilogue : kWait;
        const double inset = sp.kind == SpanKind::wait ? 3 : 0;
        svg.rect(x.at(sp.t0 / 1e3), y + inset, x.at(sp.t1 / 1e3) - x.at(sp.t0 / 1e3), kMmaRow - 2 * inset, color, 1,
                 to_string(sp.kind),
                 std::string(to_string(sp.kind)) + (sp.k_tile >= 0 ? " k_tile " + std::to_string(sp.k_tile) : "") +
                     " tile " + std::to_string(sp.tile) + ", " + us(sp.t1 - sp.t0));
      }
      y += kMmaRow + kGap;
    }
    for (double ts : l->tile_starts)
      svg.line(x.at(ts / 1e3), y_lane - 2, x.at(ts / 1e3), y - kGap + 1, "#333333", 1, true);
  }
  return svg.done();
}

}  // namespace pipegemm::trace
