// trace.hpp: the traced run -- one variant, random inputs, verified against the CPU reference --
// and its report. Only a traced build (PIPEGEMM_TRACE) launches anything; a normal one refuses.
#include <cuda_runtime.h>

#include <random>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm_tools/trace.hpp"

namespace pipegemm::trace {

std::string no_trace_support_message() {
  return "this build has no trace support: the kernels' trace stamps are compiled only in a traced build. "
         "Configure one of its own with -DPIPEGEMM_TRACE=ON and run its pipegemm, e.g. "
         "cmake -S . -B build/trace -G Ninja -DPIPEGEMM_TRACE=ON -DCMAKE_CUDA_ARCHITECTURES=90a && "
         "cmake --build build/trace --target pipegemm_cli && build/trace/pipegemm trace ... (docs/trace.md)";
}

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

#if defined(PIPEGEMM_TRACE)
// One launch with the buffer armed; the records written back.
Status traced_launch(VerifySession& sess, const Variant& v, const TraceRequest& r, VerifyOutcome* outcome,
                     std::vector<Record>* records, Buffer* header) {
  const size_t bytes = Buffer::kRecordsOffset + size_t(r.capacity) * sizeof(Record);
  void* d = nullptr;
  Status s = pipegemm::detail::cuda_status(cudaMalloc(&d, bytes), "cudaMalloc (trace buffer)");
  if (!s.ok()) return s;
  Buffer h{r.capacity, 0, 0, uint32_t(r.sms)};
  if ((s = pipegemm::detail::cuda_status(cudaMemset(d, 0, bytes), "clear the trace buffer")).ok() &&
      (s = pipegemm::detail::cuda_status(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice), "trace buffer header")).ok() &&
      (s = arm(static_cast<Buffer*>(d))).ok()) {
    *outcome = sess.verify(v);
    s = arm(nullptr);  // later launches record nothing
  }
  if (s.ok()) s = pipegemm::detail::cuda_status(cudaMemcpy(header, d, sizeof *header, cudaMemcpyDeviceToHost), "trace header");
  if (s.ok()) {
    records->resize(std::min(header->claimed, header->capacity));
    s = pipegemm::detail::cuda_status(cudaMemcpy(records->data(), static_cast<char*>(d) + Buffer::kRecordsOffset,
                                       records->size() * sizeof(Record), cudaMemcpyDeviceToHost),
                            "trace records");
  }
  cudaFree(d);
  return s;
}
#endif

}  // namespace

Status run_trace(const TraceRequest& r, TraceReport* out) {
  if (!compiled_in()) return Status::error(StatusCode::not_supported, no_trace_support_message());
  const Variant* v = find_variant(r.kernel);
  if (r.kernel.empty()) return bad("trace needs --kernel NAME (one variant; `pipegemm list`)");
  if (!v) return bad("no variant named '" + r.kernel + "' (`pipegemm list`)");
  if (v->is_peer()) return bad(r.kernel + " is a cuBLAS peer: it has no stamps (trace a kernel of ours)");
  if (r.sms < 1 || r.capacity < Buffer::kChunk) return bad("--sms must be at least 1 and the capacity at least one chunk");
  Types types;
  Status s = parse_types(r.problem.types, &types);
  if (!s.ok()) return s;
  if (!types.accepts(*v)) return bad(r.kernel + " does not compute the asked types");
  if (!(s = check_semantics(r.problem)).ok()) return s;
  Problem p;
  if (!(s = problem_for(r.problem, *v, &p)).ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, "pipegemm trace needs a CUDA GPU: " + dev.why_absent);
#if !defined(PIPEGEMM_TRACE)
  (void)out;
  return Status::error(StatusCode::not_supported, no_trace_support_message());
#else
  TraceReport rep;
  rep.seed = r.seed ? r.seed : std::random_device{}() | uint64_t(std::random_device{}()) << 32;
  std::unique_ptr<VerifySession> sess;
  if (!(s = VerifySession::create(p, make_random_inputs(p, rep.seed), &sess, r.problem.c_in_place())).ok()) return s;
  // Warm-up, untraced: module load, caches and clocks settle; it must verify too.
  rep.verify = sess->verify(*v);
  if (!rep.verify.status.ok()) return Status::error(rep.verify.status.code, "untraced launch: " + rep.verify.status.message);
  Meta& m = rep.meta;
  if (!(s = measure_clock_ghz(&m.clock_ghz)).ok()) return s;
  std::vector<Record> records;
  Buffer h{};
  if (!(s = traced_launch(*sess, *v, r, &rep.verify, &records, &h)).ok()) return s;
  m.variant = v->name;
  m.shape = p.shape_string();
  m.device = dev.name;
  m.stages = v->tile.stages;
  m.records = records.size();
  m.dropped = h.dropped;
  m.sm_limit = r.sms;
  std::vector<Stamp> stamps;
  if (!(s = calibrate(records, m.clock_ghz, &stamps)).ok()) return s;
  if (stamps.empty())
    return Status::error(StatusCode::not_supported, v->name + " recorded no stamps: its kernel has none (the seed kernel "
                                                              "k4 and k5 have; docs/trace.md says where a kernel's go)");
  rep.timeline = build_timeline(stamps);
  rep.summary = summarize(rep.timeline);
  *out = std::move(rep);
  return Status::success();
#endif
}

report::Document document(const TraceReport& r) {
  report::Document d;
  const Meta& m = r.meta;
  const Summary& s = r.summary;
  d.title = "trace of " + m.variant + " on " + m.shape + " (" + m.device + "), seed " + std::to_string(r.seed);
  report::Section& run = d.section("", false);
  const bool pass = r.verify.status.ok();
  run.data("variant", m.variant).data("shape", m.shape).data("device", m.device).data("seed", r.seed);
  run.data("verified", pass).data("clock_ghz", m.clock_ghz).data("records", m.records).data("dropped", m.dropped);
  run.line("traced launch", pass ? "PASS (every element against the CPU reference)" : "FAIL: " + r.verify.status.message);
  run.line("recorded", std::to_string(m.records) + " stamps on SMs 0-" + std::to_string(m.sm_limit - 1) + " (" +
                           std::to_string(m.dropped) + " dropped), " + std::to_string(s.ctas) + " CTAs, " +
                           std::to_string(s.lanes) + " lanes; clock " + report::fixed(m.clock_ghz, 3) + " GHz");
  report::Section& sum = d.section("summary");
  auto both = [&](const std::string& key, const std::string& label, double v, const std::string& text) {
    sum.data("summary." + key, v);
    sum.line(label, text);
  };
  both("overlap_pct", "overlap", s.overlap_pct, report::fixed(s.overlap_pct, 1) + "% of MMA time with a load in flight");
  both("hidden_load_pct", "loads hidden", s.hidden_load_pct, report::fixed(s.hidden_load_pct, 1) + "% of load time under an MMA");
  both("bubble_ns", "bubbles", s.bubble_ns, report::fixed(s.bubble_ns / 1e3, 3) + " us per MMA lane (" +
                                               report::fixed(s.bubble_pct, 1) + "% of its MMA window)");
  both("stages_in_flight_avg", "stages in flight", s.stages_avg,
       report::fixed(s.stages_avg, 2) + " avg, " + report::fixed(s.stages_max, 0) + " max (ring of " +
           std::to_string(m.stages) + ")");
  sum.data("summary.stages_in_flight_max", s.stages_max);
  both("load_ns_avg", "load", s.load_ns, report::fixed(s.load_ns / 1e3, 3) + " us avg, issue -> stage full");
  both("epilogue_ns_avg", "epilogue", s.epilogue_ns, report::fixed(s.epilogue_ns / 1e3, 3) + " us avg");
  both("cta_idle_ns", "tensor idle", s.cta_idle_ns, report::fixed(s.cta_idle_ns / 1e3, 3) + " us per CTA (" +
                                                      report::fixed(s.cta_idle_pct, 1) +
                                                      "% of its MMA window): none of its MMA lanes busy");
  sum.data("summary.cta_idle_pct", s.cta_idle_pct);
  both("epilogues_together_pct", "epilogues at once", s.epilogues_together_pct,
       report::fixed(s.epilogues_together_pct, 1) + "% of the CTAs' epilogue time with two or more lanes in one");
  return d;
}

}  // namespace pipegemm::trace
