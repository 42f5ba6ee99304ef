// trace.hpp: the timeline in Chrome's trace event format (opens in ui.perfetto.dev and
// chrome://tracing). Complete events on one thread must nest, and a lane's loads overlap each
// other and its MMAs, so each (lane, span kind, track) is a thread of its own.
#include <map>

#include "pipegemm_tools/report/json.hpp"
#include "pipegemm_tools/trace.hpp"

namespace pipegemm::trace {
namespace {

const char* row_word(SpanKind k) {
  return k == SpanKind::load ? "G->S" : k == SpanKind::mma ? "MMA" : k == SpanKind::epilogue ? "epilogue" : "wait";
}

std::string span_name(const Span& s) {
  if (s.kind == SpanKind::epilogue) return "epilogue (tile " + std::to_string(s.tile) + ")";
  return std::string(to_string(s.kind)) + " k_tile " + std::to_string(s.k_tile) + " (tile " + std::to_string(s.tile) + ")";
}

}  // namespace

std::string chrome_json(const Meta& m, const Timeline& t, const Summary& s) {
  using nlohmann::json;
  json events = json::array();
  std::map<int, int> next_tid;  // per SM (pid)
  for (const Lane& l : t.lanes) {
    if (!next_tid.count(l.sm))
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", l.sm}, {"args", {{"name", "SM " + std::to_string(l.sm)}}}});
    // Threads of this lane: MMA rows first (epilogues share the MMA row's first track), then G->S.
    std::map<std::pair<int, int>, int> tid;  // (kind, track) -> tid
    for (SpanKind k : {SpanKind::mma, SpanKind::wait, SpanKind::load}) {
      const int n = l.tracks(k) + (k == SpanKind::mma && l.tracks(SpanKind::mma) == 0 && l.tracks(SpanKind::epilogue) ? 1 : 0);
      for (int i = 0; i < n; ++i) {
        const int id = next_tid[l.sm]++;
        tid[{int(k), i}] = id;
        const std::string name = l.name() + " " + row_word(k) + (n > 1 ? " " + std::to_string(i) : "");
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", l.sm}, {"tid", id}, {"args", {{"name", name}}}});
        events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", l.sm}, {"tid", id}, {"args", {{"sort_index", id}}}});
      }
    }
    const int mma_row = tid.count({int(SpanKind::mma), 0}) ? tid[{int(SpanKind::mma), 0}] : 0;
    for (const Span& sp : l.spans) {
      const bool epi = sp.kind == SpanKind::epilogue;
      json args = {{"tile", sp.tile}, {"cta", l.cta}};
      if (!epi) args["k_tile"] = sp.k_tile;
      if (sp.slot >= 0) args["slot"] = sp.slot;
      events.push_back({{"ph", "X"}, {"cat", to_string(sp.kind)}, {"name", span_name(sp)}, {"pid", l.sm},
                        {"tid", epi ? mma_row : tid[{int(sp.kind), sp.track}]}, {"ts", sp.t0 / 1e3},
                        {"dur", (sp.t1 - sp.t0) / 1e3}, {"args", args}});
    }
    for (double ts : l.tile_starts)
      events.push_back({{"ph", "i"}, {"s", "t"}, {"name", "tile_begin"}, {"pid", l.sm}, {"tid", mma_row}, {"ts", ts / 1e3}});
  }
  json summary = {{"sms", s.sms}, {"ctas", s.ctas}, {"lanes", s.lanes}, {"mma_lanes", s.mma_lanes},
                  {"load_lanes", s.load_lanes}, {"span_ns", s.span_ns}, {"mma_busy_ns", s.mma_busy_ns},
                  {"overlap_pct", s.overlap_pct}, {"hidden_load_pct", s.hidden_load_pct},
                  {"bubble_ns", s.bubble_ns}, {"bubble_pct", s.bubble_pct}, {"stages_in_flight_avg", s.stages_avg},
                  {"stages_in_flight_max", s.stages_max}, {"load_ns_avg", s.load_ns}, {"epilogue_ns_avg", s.epilogue_ns},
                  {"cta_idle_ns", s.cta_idle_ns}, {"cta_idle_pct", s.cta_idle_pct},
                  {"epilogues_together_pct", s.epilogues_together_pct}, {"tiles", s.tiles}};
  json meta = {{"variant", m.variant}, {"shape", m.shape}, {"device", m.device}, {"clock_ghz", m.clock_ghz},
               {"stages", m.stages}, {"records", m.records}, {"dropped", m.dropped}, {"sm_limit", m.sm_limit},
               {"unmatched", t.unmatched}, {"pipegemm_version", report::version()}};
  json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"meta", meta}, {"summary", summary}}}};
  return doc.dump() + "\n";
}

}  // namespace pipegemm::trace
