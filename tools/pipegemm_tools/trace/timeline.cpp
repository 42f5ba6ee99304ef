// trace.hpp: records -> stamps -> lanes of spans (the summary numbers: summary.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "pipegemm_tools/trace.hpp"

namespace pipegemm::trace {
namespace {

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

}  // namespace pipegemm::trace
