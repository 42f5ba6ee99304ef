// trace.hpp: the summary numbers of a timeline (timeline.cpp lays the lanes out).
#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "pipegemm_tools/trace.hpp"

namespace pipegemm::trace {
namespace {

using Intervals = std::vector<std::pair<double, double>>;

// Sorted, disjoint: the union of the given intervals.
Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (auto& [a, b] : v) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second) out.back().second = std::max(out.back().second, b);
    else out.push_back({a, b});
  }
  return out;
}

double length(const Intervals& v) {
  double s = 0;
  for (auto& [a, b] : v) s += b - a;
  return s;
}

// |x ∩ y| of two merged sets.
double overlap(const Intervals& x, const Intervals& y) {
  double s = 0;
  for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    s += std::max(0.0, std::min(x[i].second, y[j].second) - std::max(x[i].first, y[j].first));
    x[i].second < y[j].second ? ++i : ++j;
  }
  return s;
}

// First to last of a merged set (0 when empty).
double window_of(const Intervals& m) { return m.empty() ? 0 : m.back().second - m.front().first; }

// A sweep over the intervals' starts (+1) and ends (-1): f(n, dt) for each stretch of time between
// two events, n the intervals open over it.
template <class F>
void for_each_count(const Intervals& v, F&& f) {
  std::vector<std::pair<double, int>> ev;
  for (auto& [a, b] : v) ev.push_back({a, +1}), ev.push_back({b, -1});
  std::sort(ev.begin(), ev.end());
  int n = 0;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    n += ev[i].second;
    f(n, ev[i + 1].first - ev[i].first);
  }
}

Intervals of_kind(const Lane& l, SpanKind k) {
  Intervals v;
  for (const Span& s : l.spans)
    if (s.kind == k) v.push_back({s.t0, s.t1});
  return v;
}

}  // namespace

Summary summarize(const Timeline& t) {
  Summary s;
  std::set<int> sms;
  std::set<uint32_t> ctas;
  std::map<uint32_t, Intervals> cta_loads, cta_mma, cta_epi;
  double first = t.end_ns, busy = 0, with_load = 0, bubble = 0, window = 0, stages_w = 0, stages_t = 0;
  double load_sum = 0, epi_sum = 0;
  int loads = 0, epis = 0;
  for (const Lane& l : t.lanes) {
    sms.insert(l.sm);
    ctas.insert(l.cta);
    for (const Span& sp : l.spans) {
      first = std::min(first, sp.t0);
      if (sp.kind == SpanKind::load) load_sum += sp.t1 - sp.t0, ++loads;
      if (sp.kind == SpanKind::epilogue) epi_sum += sp.t1 - sp.t0, ++epis;
    }
    Intervals ld = of_kind(l, SpanKind::load), mm = of_kind(l, SpanKind::mma);
    cta_loads[l.cta].insert(cta_loads[l.cta].end(), ld.begin(), ld.end());
    cta_mma[l.cta].insert(cta_mma[l.cta].end(), mm.begin(), mm.end());
    const Intervals ep = of_kind(l, SpanKind::epilogue);
    cta_epi[l.cta].insert(cta_epi[l.cta].end(), ep.begin(), ep.end());
    if (!ld.empty()) {  // loads in flight, issue to full
      ++s.load_lanes;
      for_each_count(ld, [&](int n, double dt) {
        stages_w += n * dt;
        stages_t += dt;
        s.stages_max = std::max(s.stages_max, double(n));
      });
    }
    s.tiles += int(l.tile_starts.size());
  }
  // Each CTA's loads and MMAs as unions, merged once (the epilogues stay as they are: the sweep
  // below counts how many overlap).
  for (auto* m : {&cta_loads, &cta_mma})
    for (auto& [cta, v] : *m) v = merged(std::move(v));
  int mma_lanes = 0;
  for (const Lane& l : t.lanes) {
    const Intervals mm = merged(of_kind(l, SpanKind::mma));
    if (mm.empty()) continue;
    ++mma_lanes;
    const double b = length(mm);
    busy += b;
    with_load += overlap(mm, cta_loads[l.cta]);
    window += window_of(mm);
    bubble += window_of(mm) - b;
  }
  double load_time = 0, hidden = 0;
  for (auto& [cta, ld] : cta_loads) {
    load_time += length(ld);
    hidden += overlap(ld, cta_mma[cta]);
  }
  // Per CTA: the union of its MMA lanes (where the tensor cores idle, whichever lane would feed
  // them), and how much of its epilogue time has two or more lanes in an epilogue at once.
  double cta_idle = 0, cta_window = 0, epi_union = 0, epi_together = 0;
  int mma_ctas = 0;
  for (auto& [cta, mm] : cta_mma) {
    if (mm.empty()) continue;
    ++mma_ctas;
    cta_window += window_of(mm);
    cta_idle += window_of(mm) - length(mm);
  }
  for (auto& [cta, v] : cta_epi) {
    epi_union += length(merged(v));
    for_each_count(v, [&](int n, double dt) { epi_together += n >= 2 ? dt : 0; });
  }
  s.cta_idle_ns = mma_ctas ? cta_idle / mma_ctas : 0;
  s.cta_idle_pct = cta_window > 0 ? 100 * cta_idle / cta_window : 0;
  s.epilogues_together_pct = epi_union > 0 ? 100 * epi_together / epi_union : 0;
  s.sms = int(sms.size());
  s.ctas = int(ctas.size());
  s.lanes = int(t.lanes.size());
  s.mma_lanes = mma_lanes;
  s.span_ns = t.lanes.empty() ? 0 : t.end_ns - first;
  s.mma_busy_ns = mma_lanes ? busy / mma_lanes : 0;
  s.overlap_pct = busy > 0 ? 100 * with_load / busy : 0;
  s.hidden_load_pct = load_time > 0 ? 100 * hidden / load_time : 0;
  s.bubble_ns = mma_lanes ? bubble / mma_lanes : 0;
  s.bubble_pct = window > 0 ? 100 * bubble / window : 0;
  s.stages_avg = stages_t > 0 ? stages_w / stages_t : 0;
  s.load_ns = loads ? load_sum / loads : 0;
  s.epilogue_ns = epis ? epi_sum / epis : 0;
  return s;
}

}  // namespace pipegemm::trace
