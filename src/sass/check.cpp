// The overlap rule of docs/sass.md, applied to one function's records.
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "pipegemm/sass.hpp"

namespace pipegemm::sass {

namespace {

const std::set<std::string> kKnownLoads = {"LDGSTS", "LDG", "UTMALDG"};
const std::set<std::string> kKnownMmas = {"HMMA", "IMMA", "HGMMA", "IGMMA", "FFMA", "DMMA"};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

bool in(const std::vector<std::string>& ops, const Instr& i) {
  return std::find(ops.begin(), ops.end(), i.opcode) != ops.end();
}

std::string hex(uint32_t a) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%04x", a);
  return b;
}

Cite cite(const Instr& i) { return {int64_t(i.addr), (i.pred.empty() ? "" : i.pred + " ") + i.text}; }

// A CTA-wide barrier that every thread waits at (BAR.SYNC, BAR.RED); BAR.ARV does not wait.
bool is_cta_barrier(const Instr& i) { return i.is("BAR") && (i.has_mod("SYNC") || i.has_mod("RED")); }

// Anything that can hold the next iteration until data or peers are ready.
bool is_wait(const Instr& i) {
  if (is_cta_barrier(i) || i.is("DEPBAR")) return true;
  if (i.is("SYNCS")) return i.has_mod("PHASECHK");  // mbarrier try_wait / test_wait
  return false;
}

// DEPBAR.LE SB0, n -> n; -1 if this is not a cp.async group wait.
int depbar_sb0_count(const Instr& i) {
  if (!i.is("DEPBAR") || i.operands.size() < 2 || i.operands[0] != "SB0") return -1;
  return int(std::strtol(i.operands[1].c_str(), nullptr, 0));
}

// Registers named in an operand: "R12" -> {12}; "[R12.64+0x10]" -> {12,13}; "R12.reuse" -> {12}.
// `width` widens a plain register to a vector (MMA fragments, LDG.128 destinations).
void regs_of(const std::string& op, int width, std::vector<int>* out) {
  for (size_t p = 0; p < op.size(); ++p) {
    if (op[p] != 'R' || (p > 0 && (std::isalnum(static_cast<unsigned char>(op[p - 1])) || op[p - 1] == '_')))
      continue;
    size_t q = p + 1;
    int r = 0, digits = 0;
    while (q < op.size() && std::isdigit(static_cast<unsigned char>(op[q]))) r = r * 10 + (op[q++] - '0'), ++digits;
    if (!digits) continue;  // RZ
    int w = width;
    if (op.compare(q, 3, ".64") == 0) w = std::max(w, 2);
    for (int k = 0; k < w; ++k) out->push_back(r + k);
    p = q;
  }
}

int ldg_width(const Instr& i) {
  if (i.has_mod("128")) return 4;
  if (i.has_mod("64")) return 2;
  return 1;
}

// Does `i` read any of `regs`? MMA sources are register vectors: taken 4 wide (conservative).
bool reads_any(const Instr& i, const std::vector<int>& regs, const Expect& e) {
  const int width = in(e.mma_ops, i) ? 4 : 1;
  // Stores (STS/STG/...) read every operand; other instructions write operand 0.
  const bool store = i.opcode.rfind("ST", 0) == 0;
  for (size_t k = store ? 0 : 1; k < i.operands.size(); ++k) {
    std::vector<int> r;
    regs_of(i.operands[k], width, &r);
    for (int x : r)
      if (std::find(regs.begin(), regs.end(), x) != regs.end()) return true;
  }
  return false;
}

struct Window {
  std::vector<int> strict;     // MMAs after the load with no CTA barrier or wait on it between
  std::vector<int> in_flight;  // MMAs issued before the load is waited for (barriers ignored)
  int blocker = -1;            // what ended the strict window (-1: a full turn of the loop)
};

// Walks the loop body cyclically from the load at body index `li`: the loop body repeats, so
// an MMA past the back edge is the next iteration's and still overlaps this load.
Window window_of(const std::vector<const Instr*>& body, int li, const Expect& e) {
  Window w;
  const Instr& L = *body[li];
  const int n = int(body.size());
  std::vector<int> dest;
  if (L.is("LDG") && !L.operands.empty()) regs_of(L.operands[0], ldg_width(L), &dest);
  int commits = 0;
  bool strict_open = true;
  for (int step = 1; step < n; ++step) {
    const int j = (li + step) % n;
    const Instr& I = *body[j];
    if (I.is("LDGDEPBAR")) ++commits;
    // Waits that complete the load itself end both windows.
    bool waits_on_load = false;
    if (L.is("LDGSTS")) {
      int n_allowed = depbar_sb0_count(I);
      waits_on_load = n_allowed >= 0 && commits > n_allowed;  // docs/sass.md: "group arithmetic"
    } else if (L.is("LDG")) {
      waits_on_load = reads_any(I, dest, e);
    }
    if (waits_on_load) {
      if (strict_open) w.blocker = j;
      break;
    }
    if (strict_open && is_cta_barrier(I)) {
      strict_open = false;
      w.blocker = j;
    }
    if (in(e.mma_ops, I)) {
      w.in_flight.push_back(j);
      if (strict_open) w.strict.push_back(j);
    }
  }
  return w;
}

bool contains(const Loop& a, const Loop& b) { return a.head <= b.head && b.branch <= a.branch && !(a.head == b.head && a.branch == b.branch); }

}  // namespace

Expect expect_from(const SassExpect& s) {
  Expect e;
  e.load_ops = split_list(s.load_ops);
  e.mma_ops = split_list(s.mma_op);
  if (e.load_ops.empty()) e.load_ops = {"LDGSTS", "LDG", "UTMALDG"};
  if (e.mma_ops.empty()) e.mma_ops = {"HMMA", "IMMA", "HGMMA"};
  e.expect_overlap = s.expect_overlap;
  e.mma_per_k_tile = s.mma_per_k_tile;
  e.warp_specialized = s.warp_specialized;
  return e;
}

Expect generic_expect() { return expect_from(SassExpect{}); }

std::string validate(const SassExpect& s) {
  std::string bad;
  for (const std::string& op : split_list(s.load_ops))
    if (!kKnownLoads.count(op)) bad += "unknown load op '" + op + "' (LDGSTS, LDG, UTMALDG); ";
  for (const std::string& op : split_list(s.mma_op))
    if (!kKnownMmas.count(op)) bad += "unknown MMA op '" + op + "' (HMMA, IMMA, HGMMA, FFMA); ";
  if (s.mma_per_k_tile < 0) bad += "mma_per_k_tile < 0; ";
  return bad;
}

std::vector<int> loop_body(const Function& f, const Loop& l) {
  std::vector<int> body;
  const int n = int(f.code.size());
  for (int k = l.head; k <= l.branch; ++k) {
    body.push_back(k);
    const Instr& br = f.code[k];
    if (!br.branch() || br.target < 0 || k == l.branch) continue;
    const int t = f.index_of(uint32_t(br.target));
    if (t < 0 || (t >= l.head && t <= l.branch)) continue;
    // An out-of-line block: straight-line code that ends in an unconditional jump back into the
    // loop (ptxas places a guarded prefetch this way). It runs here, so it is walked here.
    std::vector<int> block;
    for (int j = t; j < n && int(block.size()) < 4096; ++j) {
      const Instr& i = f.code[j];
      if (i.is("EXIT") || i.is("RET")) break;
      block.push_back(j);
      if (i.branch() && i.pred.empty()) {
        const int back = f.index_of(uint32_t(std::max<int64_t>(i.target, 0)));
        if (i.target >= 0 && back >= l.head && back <= l.branch) body.insert(body.end(), block.begin(), block.end());
        break;
      }
    }
  }
  return body;
}

std::vector<Loop> find_loops(const Function& f, const Expect& e) {
  std::vector<Loop> loops;
  for (int b = 0; b < int(f.code.size()); ++b) {
    const Instr& br = f.code[b];
    if (!br.backward_branch()) continue;
    int h = f.index_of(uint32_t(br.target));
    if (h < 0) continue;
    Loop L{h, b, 0, 0};
    bool exits = false;
    for (int k = h; k <= b; ++k)
      if (f.code[k].is("EXIT") && f.code[k].pred.empty()) exits = true;
    if (exits) continue;
    for (int k : loop_body(f, L)) {
      const Instr& i = f.code[k];
      if (in(e.mma_ops, i)) ++L.mmas;
      if (in(e.load_ops, i)) ++L.loads;
    }
    // Several back edges to one head: one loop, closed by the last of them.
    auto same = std::find_if(loops.begin(), loops.end(), [&](const Loop& x) { return x.head == h; });
    if (same != loops.end()) *same = L;
    else loops.push_back(L);
  }
  return loops;
}

std::string Verdict::status() const {
  if (!loop_found) return expect.expect_overlap ? "NO MAIN LOOP" : "no main loop (expected no overlap)";
  if (overlap && expect.expect_overlap) return pass ? "overlap proven" : "overlap proven, other checks FAILED";
  if (overlap) return "overlap found but NOT expected (stale expectation?)";
  if (!expect.expect_overlap) return pass ? "not overlapped (expected)" : "not overlapped (expected), other checks FAILED";
  return "NOT overlapped";
}

Verdict check_function(const Function& f, const Expect& e) {
  Verdict v;
  v.function = f.name;
  v.arch = f.arch;
  v.expect = e;

  // ----- spills: nothing else can excuse them ------------------------------------------------
  {
    int ldl = 0, stl = 0;
    for (const Instr& i : f.code) ldl += i.is("LDL"), stl += i.is("STL");
    std::string d = "LDL " + std::to_string(ldl) + ", STL " + std::to_string(stl);
    if (f.res.stack >= 0) d += ", STACK " + std::to_string(f.res.stack) + ", LOCAL " + std::to_string(f.res.local);
    if (f.res.regs >= 0) d += ", REG " + std::to_string(f.res.regs);
    const bool ok = ldl == 0 && stl == 0 && f.res.stack <= 0 && f.res.local <= 0;
    if (f.res.stack < 0) d += " (no resource usage: stack not checked)";
    v.checks.push_back({"spills", ok, d});
  }

  const std::vector<Loop> loops = find_loops(f, e);
  auto innermost_with = [&](auto pred) {
    // Loops that satisfy pred and contain no other loop that does; the one with most MMAs wins.
    const Loop* best = nullptr;
    for (const Loop& a : loops) {
      if (!pred(a)) continue;
      bool inner = true;
      for (const Loop& b : loops)
        if (&a != &b && pred(b) && contains(a, b)) inner = false;
      if (inner && (!best || a.mmas > best->mmas || (a.mmas == best->mmas && a.loads > best->loads))) best = &a;
    }
    return best;
  };

  const Loop* main = innermost_with([](const Loop& l) { return l.mmas > 0; });
  if (!main) {
    v.checks.push_back({"main loop", false,
                        "no backward branch closes a loop that holds " + std::string(e.mma_ops.empty() ? "MMA" : e.mma_ops[0]) +
                            " (K loop fully unrolled, or no MMA of this kind in the function)"});
    v.pass = !e.expect_overlap && v.checks[0].ok;
    return v;
  }
  v.loop_found = true;
  v.loop_begin = f.code[main->head].addr;
  v.loop_end = f.code[main->branch].addr;
  v.back_edge = cite(f.code[main->branch]);
  v.mma_in_loop = main->mmas;
  v.loads_in_loop = main->loads;
  v.checks.push_back({"main loop", true,
                      hex(v.loop_begin) + " .. " + hex(v.loop_end) + " (" + f.code[main->branch].text + "): " +
                          std::to_string(main->mmas) + " " + e.mma_ops[0] + ", " + std::to_string(main->loads) +
                          " loads, " + std::to_string(loop_body(f, *main).size()) + " instructions"});

  // ----- overlap -----------------------------------------------------------------------------
  std::vector<const Instr*> body;  // in execution order: out-of-line blocks where they run
  for (int k : loop_body(f, *main)) body.push_back(&f.code[k]);
  const Loop* producer = nullptr;
  if (e.warp_specialized) {
    // Producer and consumer are different warps: loads in a loop of their own, MMAs in another.
    producer = innermost_with([](const Loop& l) { return l.loads > 0 && l.mmas == 0; });
    const bool disjoint = producer && (producer->branch < main->head || main->branch < producer->head);
    auto loop_waits = [&](const Loop& l, bool* bar, Cite* wait) {
      for (int k : loop_body(f, l)) {
        if (is_cta_barrier(f.code[k]) && !*bar) *bar = true, *wait = cite(f.code[k]);
      }
    };
    bool pbar = false, cbar = false;
    Cite pb, cb;
    if (producer) loop_waits(*producer, &pbar, &pb);
    loop_waits(*main, &cbar, &cb);
    v.overlap = disjoint && !pbar && !cbar;
    if (producer) {
      for (int k : loop_body(f, *producer))
        if (in(e.load_ops, f.code[k])) { v.load = cite(f.code[k]); break; }
    }
    for (const Instr* i : body)
      if (in(e.mma_ops, *i)) { v.mma = cite(*i); break; }
    for (const Instr* i : body)
      if (i->is("SYNCS") && i->has_mod("PHASECHK")) { v.gate = cite(*i); break; }
    if (v.overlap) v.mma_overlapped = v.mma_in_flight = main->mmas;
    std::string d;
    if (!producer) d = "no producer loop: no loop holds a load without an MMA";
    else if (!disjoint) d = "producer loop " + hex(f.code[producer->head].addr) + " .. " + hex(f.code[producer->branch].addr) + " overlaps the consumer loop";
    else if (pbar || cbar) {
      v.blocker = pbar ? pb : cb;
      d = "a CTA barrier in the " + std::string(pbar ? "producer" : "consumer") + " loop: " + v.blocker.text;
    } else d = "producer loop " + hex(f.code[producer->head].addr) + " .. " + hex(f.code[producer->branch].addr) + " issues " +
             v.load.text + "; consumer loop issues " + std::to_string(main->mmas) + " " + e.mma_ops[0] + "; no BAR.SYNC in either";
    v.checks.push_back({"overlap", v.overlap, d});
  } else {
    std::set<int> strict, flight;
    int best_load = -1, best_count = -1;
    Window best;
    int first_blocked = -1;
    Window first_blocked_w;
    for (int li = 0; li < int(body.size()); ++li) {
      if (!in(e.load_ops, *body[li])) continue;
      Window w = window_of(body, li, e);
      strict.insert(w.strict.begin(), w.strict.end());
      flight.insert(w.in_flight.begin(), w.in_flight.end());
      if (int(w.strict.size()) > best_count) best_count = int(w.strict.size()), best_load = li, best = w;
      if (w.strict.empty() && first_blocked < 0) first_blocked = li, first_blocked_w = w;
    }
    v.mma_overlapped = int(strict.size());
    v.mma_in_flight = int(flight.size());
    v.overlap = v.mma_overlapped > 0;
    std::string d;
    if (best_load < 0) {
      d = "no " + e.load_ops[0] + (e.load_ops.size() > 1 ? " (or other listed load)" : "") + " inside the loop body";
    } else if (v.overlap) {
      v.load = cite(*body[best_load]);
      v.mma = cite(*body[best.strict.front()]);
      if (best.blocker >= 0) v.blocker = cite(*body[best.blocker]);
      d = std::to_string(v.mma_overlapped) + " of " + std::to_string(main->mmas) + " " + e.mma_ops[0] +
          " issue after a next-stage load with no BAR.SYNC or wait on it between; " +
          std::to_string(v.mma_in_flight) + " while a load is still in flight";
    } else {
      v.load = cite(*body[first_blocked]);
      if (first_blocked_w.blocker >= 0) v.blocker = cite(*body[first_blocked_w.blocker]);
      d = "every " + e.mma_ops[0] + " of the loop waits for the loads first" +
          (v.blocker.addr >= 0 ? ": " + v.load.text + " at " + hex(uint32_t(v.load.addr)) + " is followed by " +
                                     v.blocker.text + " at " + hex(uint32_t(v.blocker.addr)) + " before any MMA"
                               : "");
    }
    v.checks.push_back({"overlap", v.overlap, d});
  }

  // ----- gate: something in the loop holds the next iteration until its stage is ready -------
  {
    int from = 0;
    if (v.mma.addr >= 0)
      for (int k = 0; k < int(body.size()); ++k)
        if (body[k]->addr == uint32_t(v.mma.addr)) from = k;
    Cite g;
    std::string all;
    for (int s = 0; s < int(body.size()); ++s) {
      const Instr& i = *body[(from + s) % body.size()];
      if (!is_wait(i)) continue;
      if (g.addr < 0) g = cite(i);
      if (all.size() < 160) all += (all.empty() ? "" : ", ") + i.text + " @" + hex(i.addr);
    }
    if (!e.warp_specialized || v.gate.addr < 0) v.gate = g;
    const bool ok = g.addr >= 0;
    v.checks.push_back({"gate", ok, ok ? "waits in the loop: " + all : "no BAR.SYNC, DEPBAR or mbarrier wait in the loop"});
  }

  // ----- MMA count per iteration = the non-pipelined count, times the compiler's unroll -------
  if (e.mma_per_k_tile > 0) {
    const int c = main->mmas, x = e.mma_per_k_tile;
    const bool ok = c % x == 0;
    v.unroll = ok ? c / x : 0;
    std::string d = std::to_string(c) + " per iteration, " + std::to_string(x) + " per k_tile expected";
    if (ok && v.unroll > 1) d += ": the compiler unrolled the K loop " + std::to_string(v.unroll) + "x";
    if (!ok) d += ": not a whole number of k_tiles (a k_block lost, duplicated, or left in a nested loop)";
    v.checks.push_back({"mma count", ok, d});
  } else {
    v.checks.push_back({"mma count", true, std::to_string(main->mmas) + " per iteration (no expectation set)"});
  }

  // ----- wgmma serialization: a wait after every HGMMA ---------------------------------------
  const bool has_hgmma = std::any_of(body.begin(), body.end(), [](const Instr* i) { return i->is("HGMMA"); });
  if (has_hgmma && std::find(e.mma_ops.begin(), e.mma_ops.end(), "HGMMA") != e.mma_ops.end()) {
    int hgmma = 0, waited = 0;
    bool pending = false;
    for (const Instr* i : body) {
      if (i->is("HGMMA")) {
        if (pending) pending = false;
        ++hgmma;
        pending = true;
      } else if (i->is("WARPGROUP") && i->has_mod("DEPBAR") && pending) {
        ++waited;
        pending = false;
      }
    }
    const bool serialized = hgmma > 1 && waited >= hgmma;
    v.checks.push_back({"wgmma", !serialized,
                        std::to_string(hgmma) + " HGMMA, " + std::to_string(waited) +
                            " followed by WARPGROUP.DEPBAR before the next" +
                            (serialized ? ": serialized (each wgmma waits for the previous)" : "")});
  }

  bool others = true;
  for (const Check& c : v.checks)
    if (c.name != "overlap" && c.name != "gate" && !c.ok) others = false;
  const bool gate_ok = std::find_if(v.checks.begin(), v.checks.end(), [](const Check& c) { return c.name == "gate"; })->ok;
  v.overlap = v.overlap && gate_ok;  // loads before MMAs with nothing gating the loop is no pipeline
  v.pass = others && (v.overlap == e.expect_overlap);
  return v;
}

std::string format_verdict(const Verdict& v) {
  std::ostringstream o;
  o << (v.variant.empty() ? v.function : v.variant) << " [" << v.arch << "]: " << v.status() << "\n";
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
