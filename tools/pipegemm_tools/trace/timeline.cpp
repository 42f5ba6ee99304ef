// trace.hpp: records -> stamps -> lanes of spans -> the summary numbers.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

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

using LaneKey = std::tuple<int, uint32_t, int, int>;  // sm, cta, role, lane
LaneKey key_of(const Stamp& s) { return {s.sm, s.cta, int(s.role), s.lane}; }

}  // namespace

const char* to_string(SpanKind k) {
  return k == SpanKind::load ? "load" : k == SpanKind::mma ? "mma" : k == SpanKind::epilogue ? "epilogue" : "wait";
}

int Lane::tracks(SpanKind k) const {
  int n = 0;
  for (const Span& s : spans)
    if (s.kind == k) n = std::max(n, s.track + 1);
  return n;
}

std::string Lane::name() const {
  std::string s = "CTA " + std::to_string(cta) + " " + to_string(role);
  return role == Role::producer && lane == 0 ? s : s + " " + std::to_string(lane);
}

Status calibrate(const std::vector<Record>& records, double ghz, std::vector<Stamp>* out) {
  if (!(ghz > 0)) return Status::error(StatusCode::invalid_argument, "trace: the clock rate must be positive");
  // %globaltimer reads ~1.7e18 ns since the epoch, where a double's step is 256 ns (a k_tile is
  // ~1 us): the ns are taken relative to the first sync's, in integers, before any double.
  uint64_t base = 0;
  for (const Record& r : records)
    if (Event(r.event) == Event::clock_sync && (base == 0 || r.ns < base)) base = r.ns;
  std::map<int, double> zero;  // SM -> ns (after base) at clock 0
  for (const Record& r : records)
    if (Event(r.event) == Event::clock_sync) {
      const double z = double(r.ns - base) - double(r.clock) / ghz;
      auto it = zero.find(r.sm);
      if (it == zero.end() || z > it->second) zero[r.sm] = z;
    }
  out->clear();
  for (const Record& r : records) {
    const Event e = Event(r.event);
    if (e == Event::none || e >= Event::count_) continue;
    auto z = zero.find(r.sm);
    if (z == zero.end())
      return Status::error(StatusCode::invalid_argument, "trace: SM " + std::to_string(r.sm) + " has records but no clock_sync");
    Stamp s;
    s.ns = double(r.clock) / ghz + z->second;
    s.event = e;
    s.role = Role(r.role);
    s.lane = r.lane;
    s.sm = r.sm;
    s.cta = r.cta;
    s.tile = r.tile;
    s.k_tile = r.k_tile;
    s.slot = r.slot == 255 ? -1 : r.slot;
    out->push_back(s);
  }
  std::stable_sort(out->begin(), out->end(), [](const Stamp& a, const Stamp& b) { return a.ns < b.ns; });
  const double t0 = out->empty() ? 0 : out->front().ns;
  for (Stamp& s : *out) s.ns -= t0;
  return Status::success();
}

Timeline build_timeline(const std::vector<Stamp>& stamps) {
  Timeline t;
  std::map<LaneKey, Lane> lanes;
  // stage_full per (cta, tile, k_tile): (time, lane) in time order.
  std::map<std::tuple<uint32_t, int, int>, std::vector<std::pair<double, LaneKey>>> full;
  for (const Stamp& s : stamps) {
    Lane& l = lanes[key_of(s)];
    l.sm = s.sm, l.cta = s.cta, l.role = s.role, l.lane = s.lane;
    if (s.event == Event::stage_full) full[{s.cta, s.tile, s.k_tile}].push_back({s.ns, key_of(s)});
    if (s.event == Event::tile_begin) l.tile_starts.push_back(s.ns);
    t.end_ns = std::max(t.end_ns, s.ns);
  }
  // Open begins per lane and kind, keyed by (tile, k_tile): an end closes the earliest.
  std::map<std::tuple<LaneKey, int, int, int>, std::vector<const Stamp*>> open;
  // The span kind an event begins or ends (-1: neither).
  auto begins = [](Event e) {
    return e == Event::mma_begin ? int(SpanKind::mma) : e == Event::epilogue_begin ? int(SpanKind::epilogue)
           : e == Event::stage_wait ? int(SpanKind::wait) : -1;
  };
  auto ends = [](Event e) {
    return e == Event::mma_end ? int(SpanKind::mma) : e == Event::epilogue_end ? int(SpanKind::epilogue)
           : e == Event::stage_full ? int(SpanKind::wait) : -1;
  };
  for (const Stamp& s : stamps) {
    Lane& l = lanes[key_of(s)];
    if (begins(s.event) >= 0) {
      open[{key_of(s), begins(s.event), s.tile, s.k_tile}].push_back(&s);
      continue;
    }
    if (ends(s.event) >= 0) {
      const SpanKind k = SpanKind(ends(s.event));
      auto it = open.find({key_of(s), int(k), s.tile, s.k_tile});
      if (it != open.end() && !it->second.empty()) {
        const Stamp* b = it->second.front();
        it->second.erase(it->second.begin());
        l.spans.push_back({k, b->ns, s.ns, s.tile, s.k_tile, b->slot >= 0 ? b->slot : s.slot});
      } else if (k != SpanKind::wait) {
        ++t.unmatched;  // a stage_full without a stage_wait is the norm
      }
    }
    if (s.event == Event::load_issued) {
      auto f = full.find({s.cta, s.tile, s.k_tile});
      const std::pair<double, LaneKey>* end = nullptr;
      if (f != full.end())
        for (const auto& c : f->second) {
          if (c.first < s.ns) continue;
          if (c.second == key_of(s)) { end = &c; break; }  // the issuing lane's own wait comes first
          if (!end) end = &c;
        }
      if (end) l.spans.push_back({SpanKind::load, s.ns, end->first, s.tile, s.k_tile, s.slot});
      else ++t.unmatched;
    }
  }
  for (auto& [k, v] : open) t.unmatched += int(v.size());
  for (auto& [k, l] : lanes) {
    std::sort(l.spans.begin(), l.spans.end(), [](const Span& a, const Span& b) { return a.t0 < b.t0; });
    // Greedy tracks per kind: a span takes the first track free at its start.
    std::map<int, std::vector<double>> busy_until;
    for (Span& s : l.spans) {
      std::vector<double>& tr = busy_until[int(s.kind)];
      size_t i = 0;
      while (i < tr.size() && tr[i] > s.t0) ++i;
      if (i == tr.size()) tr.push_back(0);
      tr[i] = s.t1;
      s.track = int(i);
    }
    t.lanes.push_back(std::move(l));
  }
  return t;
}

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
  int mma_lanes = 0;
  for (const Lane& l : t.lanes) {
    const Intervals mm = merged(of_kind(l, SpanKind::mma));
    if (mm.empty()) continue;
    ++mma_lanes;
    const double b = length(mm);
    busy += b;
    with_load += overlap(mm, merged(cta_loads[l.cta]));
    window += window_of(mm);
    bubble += window_of(mm) - b;
  }
  double load_time = 0, hidden = 0;
  for (auto& [cta, v] : cta_loads) {
    const Intervals ld = merged(v);
    load_time += length(ld);
    hidden += overlap(ld, merged(cta_mma[cta]));
  }
  // Per CTA: the union of its MMA lanes (where the tensor cores idle, whichever lane would feed
  // them), and how much of its epilogue time has two or more lanes in an epilogue at once.
  double cta_idle = 0, cta_window = 0, epi_union = 0, epi_together = 0;
  int mma_ctas = 0;
  for (auto& [cta, v] : cta_mma) {
    const Intervals mm = merged(v);
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
