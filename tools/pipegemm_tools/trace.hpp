// `pipegemm trace`: one launch of a variant with its pipeline's stamps recorded (a traced build:
// cmake -DPIPEGEMM_TRACE=ON), drawn as a Chrome/Perfetto trace and an SVG timeline, with the
// numbers that say how well the ring overlaps (docs/trace.md). Everything but run_trace works on
// records alone, so it is tested without a GPU.
//
//   records (pipegemm/introspect/trace.hpp) -> calibrate -> stamps (ns, one time axis)
//   stamps -> build_timeline -> lanes of spans: load (load_issued -> stage_full), mma
//             (mma_begin -> mma_end), epilogue, wait (stage_wait -> stage_full)
//   timeline -> summarize -> overlap, bubbles, stages in flight
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipegemm/introspect/trace.hpp"
#include "pipegemm_tools/reports.hpp"

namespace pipegemm::trace {

struct Stamp {
  double ns = 0;  // since the run's first stamp
  Event event = Event::none;
  Role role = Role::warp;
  int lane = 0, sm = 0, tile = 0, k_tile = -1, slot = -1;
  uint32_t cta = 0;
};

// clock64 -> ns at `ghz` (ticks per ns); each SM's zero from its clock_sync records (the largest
// %globaltimer - clock / ghz of any: the timer only lags). Unwritten records (Event::none) are
// skipped; refuses records of an SM without a sync, or a non-positive rate.
Status calibrate(const std::vector<Record>& records, double ghz, std::vector<Stamp>* out);

enum class SpanKind { load, mma, epilogue, wait };
const char* to_string(SpanKind k);

struct Span {
  SpanKind kind = SpanKind::mma;
  double t0 = 0, t1 = 0;
  int tile = 0, k_tile = -1, slot = -1;
  int track = 0;  // sub-row among its lane's spans of this kind: spans on one track never overlap
};

struct Lane {
  int sm = 0;
  uint32_t cta = 0;
  Role role = Role::warp;
  int lane = 0;
  std::vector<Span> spans;          // by start time
  std::vector<double> tile_starts;  // tile_begin stamps
  int tracks(SpanKind k) const;     // sub-rows the spans of kind k need (0: none)
  std::string name() const;         // "CTA 12 warp 3", "CTA 0 producer", "CTA 0 consumer 1"
};

struct Timeline {
  std::vector<Lane> lanes;  // by SM, CTA, role, lane
  double end_ns = 0;        // the last stamp
  int unmatched = 0;        // begins or loads with no end, ends with no begin
};
// Loads: a load_issued ends at the first stage_full of the same CTA, tile and k_tile at or after
// it -- the issuing lane's own when it has one (the ladder: every warp loads and waits), else
// any lane's (k5: the producer issues, a consumer waits). MMA, epilogue and wait spans pair on
// their lane: an end closes the earliest open begin of its (tile, k_tile).
Timeline build_timeline(const std::vector<Stamp>& stamps);

struct Summary {
  int sms = 0, ctas = 0, lanes = 0, mma_lanes = 0, load_lanes = 0;
  double span_ns = 0;          // first to last stamp
  double mma_busy_ns = 0;      // per MMA lane (mean): the union of its MMA spans
  double overlap_pct = 0;      // of that busy time, the share with a load of its CTA in flight
  double hidden_load_pct = 0;  // of the CTAs' load time (union per CTA), the share under an MMA of the CTA
  double bubble_ns = 0;        // per MMA lane (mean): idle between its first MMA and its last
  double bubble_pct = 0;       //   ... as a share of that window
  double stages_avg = 0;       // loads in flight per loading lane, time-weighted over its window
  double stages_max = 0;       //   ... the most at once
  double load_ns = 0;          // mean load span (issue -> full)
  double epilogue_ns = 0;      // mean epilogue span
  double cta_idle_ns = 0;      // per CTA with MMAs (mean): no MMA lane of it busy, between its first MMA and its last
  double cta_idle_pct = 0;     //   ... as a share of that window (one MMA lane a CTA: its bubbles)
  double epilogues_together_pct = 0;  // of the CTAs' epilogue time (union per CTA), the share with two or
                                      // more of its lanes in an epilogue at once (cooperative consumers)
  int tiles = 0;               // tile_begin stamps, over every lane
};
Summary summarize(const Timeline& t);

// A run's meta data, carried into both pictures.
struct Meta {
  std::string variant, shape, device;
  double clock_ghz = 0;
  int stages = 0;
  uint64_t records = 0, dropped = 0;
  int sm_limit = 0;
};

// Chrome's trace event format (chrome://tracing, ui.perfetto.dev): "traceEvents" with a complete
// ("X") event per span, pid = SM, tid = one per lane and span kind and track (named by metadata
// events), ts/dur in microseconds; the summary and meta under "otherData".
std::string chrome_json(const Meta& m, const Timeline& t, const Summary& s);

struct SvgOptions {
  int sm = -1;        // the SM to draw (-1: the lowest recorded)
  int max_ctas = 8;   // CTAs of that SM, in the order they start
  bool all_warps = false;  // Role::warp lanes: every warp (default: warp 0 of each CTA)
};
// The seeds' timeline: per CTA of one SM, a G->S row (its loads, one thin bar per track) and an
// MMA row (MMA spans; epilogues grey; the gaps between MMAs -- bubbles -- shaded) per lane,
// coloured by ring slot, tile starts dashed, the summary above.
std::string timeline_svg(const Meta& m, const Timeline& t, const Summary& s, const SvgOptions& o = {});

// ----- the run (traced builds) --------------------------------------------------------------

struct TraceRequest {
  ProblemRequest problem;
  std::string kernel;
  uint64_t seed = 0;         // 0 = fresh
  int sms = 4;               // record on SMs 0 .. sms-1
  uint32_t capacity = 1u << 20;  // records
};
struct TraceReport {
  Meta meta;
  VerifyOutcome verify;      // the traced launch, against the CPU reference
  Timeline timeline;
  Summary summary;
  uint64_t seed = 0;
};
// In a build without stamps: not_supported, saying how to get one. Else: random inputs (seeded),
// one untraced launch (warm-up, verified), the SM clock measured, then one traced launch,
// verified too; its records calibrated and laid out.
Status run_trace(const TraceRequest& r, TraceReport* out);
report::Document document(const TraceReport& r);
// What a normal build says instead of tracing.
std::string no_trace_support_message();

}  // namespace pipegemm::trace
