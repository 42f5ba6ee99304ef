// What a registered kernel's SASS is expected to show, and a verdict in words.
#include <sstream>

#include "pipegemm_tools/sass/check_detail.hpp"

namespace pipegemm::sass {

using detail::hex;

// The expectations follow from the variant's typed fields: its load path names the load
// instruction, its MMA kind (and input type) the compute one, its pipeline whether loads must
// overlap, its tile and MMA shape how many MMAs a k_tile issues per instruction stream.
Expect expect_for(const Variant& v) {
  Expect e;
  const Mechanism& m = v.mech;
  switch (m.load) {
    case LoadPath::ldg: e.load_ops = {"LDG"}; break;
    case LoadPath::cp_async: e.load_ops = {"LDGSTS"}; break;
    case LoadPath::tma: e.load_ops = {"UTMALDG"}; break;
    case LoadPath::library: e.load_ops = {"LDGSTS", "LDG", "UTMALDG"}; break;
  }
  switch (m.mma) {
    case MmaKind::mma_sync: e.mma_ops = {v.a_type == DType::i8 ? "IMMA" : "HMMA"}; break;
    case MmaKind::wgmma: e.mma_ops = {v.a_type == DType::i8 ? "IGMMA" : "HGMMA"}; break;
    case MmaKind::ffma: e.mma_ops = {"FFMA"}; break;
    case MmaKind::library: e.mma_ops = {"HMMA", "IMMA", "HGMMA", "IGMMA"}; break;
  }
  e.expect_overlap = m.pipeline != PipelineKind::none && m.pipeline != PipelineKind::single;
  e.gate_by_registers = m.pipeline == PipelineKind::register_prefetch;
  e.warp_specialized = m.warp_specialized;
  e.cta_threads = v.tile.threads;
  // Instruction streams: threads (FFMA), warps (mma.sync), consumer warpgroups (wgmma; ping-pong:
  // each consumer issues a whole tile's k_tile).
  const int streams = m.mma == MmaKind::ffma ? v.tile.threads
                      : m.mma == MmaKind::wgmma ? (m.pingpong ? 1 : m.consumers) : v.tile.threads / 32;
  // A thin kernel (swap_ab) pads BM, its thin side, to whole MMA rows: those MMAs are issued too.
  const int bm = m.swap_ab && v.tile.mma_m > 0 ? (v.tile.bm + v.tile.mma_m - 1) / v.tile.mma_m * v.tile.mma_m : v.tile.bm;
  if (streams > 0 && v.tile.mma_m > 0 && v.tile.bm > 0)
    e.mma_per_k_tile = mma_per_k_tile(bm, v.tile.bn, v.tile.bk, streams, v.tile.mma_m, v.tile.mma_n,
                                      v.tile.mma_k);
  // LDG rungs: the width their load path names (k0's element, k2's 16-byte vector, a teaching
  // variant's 2-byte column walk), so a compiler's merged or split loads cannot pass unseen.
  // A kernel whose whole K is one k_tile (shortk) has no K loop: no load in one to measure.
  if (m.load == LoadPath::ldg && !one_k_tile(v)) e.load_bytes = m.load_bytes;
  return e;
}

Expect generic_expect() {
  Expect e;
  e.load_ops = {"LDGSTS", "LDG", "UTMALDG"};
  e.mma_ops = {"HMMA", "IMMA", "HGMMA", "IGMMA"};
  return e;
}

std::string Verdict::kernel() const {
  return variant.empty() ? function : form.empty() ? variant : variant + " " + form;
}

std::string Verdict::status() const {
  if (!loop_found) return expect.expect_overlap ? "NO MAIN LOOP" : "no main loop (expected no overlap)";
  if (overlap && expect.expect_overlap) return pass ? "overlap proven" : "overlap proven, other checks FAILED";
  if (overlap) return "overlap found but NOT expected (stale expectation?)";
  if (!expect.expect_overlap) return pass ? "not overlapped (expected)" : "not overlapped (expected), other checks FAILED";
  return "NOT overlapped";
}

std::string format_verdict(const Verdict& v) {
  std::ostringstream o;
  o << v.kernel() << " [" << v.arch << "]: " << v.status() << "\n";
  if (!v.variant.empty()) o << "  function " << v.function << "\n";
  for (const Check& c : v.checks) {
    // Overlap and gate are what a non-pipelined rung is expected to lack: "no", not "FAIL".
    const bool informative = !v.expect.expect_overlap && (c.name == "overlap" || c.name == "gate");
    o << "  " << (c.ok ? "ok  " : informative ? "no  " : "FAIL") << " " << c.name;
    o << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ') << c.detail << "\n";
  }
  auto line = [&](const char* what, const Cite& c) {
    if (c.addr >= 0) o << "    " << what << " /*" << hex(uint32_t(c.addr)).substr(2) << "*/  " << c.text << "\n";
  };
  if (v.overlap) {
    o << "  proof (load issues, MMA issues with it in flight, the wait that gates the next k_tile):\n";
    line("load ", v.load);
    line("mma  ", v.mma);
    line("gate ", v.gate);
    line("loop ", v.back_edge);
  } else if (v.load.addr >= 0 || v.blocker.addr >= 0) {
    o << "  why not:\n";
    line("load ", v.load);
    line("block", v.blocker);
  }
  return o.str();
}

}  // namespace pipegemm::sass
