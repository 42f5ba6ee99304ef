// The overlap rule of docs/sass.md, applied to one function's records.
#include <algorithm>
#include <set>

#include "pipegemm_tools/sass/check_detail.hpp"

namespace pipegemm::sass {

using namespace detail;

namespace {

bool contains(const Loop& a, const Loop& b) { return a.head <= b.head && b.branch <= a.branch && !(a.head == b.head && a.branch == b.branch); }

// Bytes per thread of a global load: its size modifier (U8/S8, U16/S16, 64, 128), else 32 bits.
int load_width(const Instr& i) {
  for (const std::string& m : i.mods) {
    if (m == "U8" || m == "S8") return 1;
    if (m == "U16" || m == "S16") return 2;
    if (m == "64") return 8;
    if (m == "128") return 16;
  }
  return 4;
}

}  // namespace

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
    // A barrier every thread joins holds the producer's loads; a named one over fewer threads than
    // the CTA (a consumer warpgroup's own, e.g. k5's chunk stores under the mainloop: BAR.SYNC R2,
    // 0x80) does not, while the producer loop itself has none.
    auto loop_waits = [&](const Loop& l, bool* bar, Cite* wait) {
      for (int k : loop_body(f, l)) {
        if (is_cta_barrier(f.code[k]) && !is_partial_barrier(f.code[k], e.cta_threads) && !*bar)
          *bar = true, *wait = cite(f.code[k]);
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
    if (e.gate_by_registers && g.addr < 0 && v.overlap) {
      v.gate = v.mma;  // the loads' registers are read by MMAs of a later k_tile: their scoreboard waits gate
      v.checks.push_back({"gate", true, "registers only: the first reader of a load's registers waits on its "
                                        "scoreboard (no barrier instruction)"});
    } else {
      const bool ok = g.addr >= 0;
      v.checks.push_back({"gate", ok, ok ? "waits in the loop: " + all : "no BAR.SYNC, DEPBAR or mbarrier wait in the loop"});
    }
  }

  // ----- load width: the loop's loads are as wide as the load path says -------------------------
  if (e.load_bytes > 0) {
    int width_ok = 0, loads = 0;
    for (const Instr* i : body)
      if (in(e.load_ops, *i)) ++loads, width_ok += load_width(*i) == e.load_bytes;
    v.checks.push_back({"load width", width_ok > 0,
                        std::to_string(width_ok) + " of " + std::to_string(loads) + " loads in the loop move " +
                            std::to_string(e.load_bytes) + " bytes per thread" +
                            (width_ok ? "" : ": none as wide as the load path says (merged or split by the compiler?)")});
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

  // ----- wgmma serialization: a wait after every HGMMA (IGMMA for s8) ------------------------
  std::string gmma;
  for (const char* op : {"HGMMA", "IGMMA"})
    if (gmma.empty() && std::find(e.mma_ops.begin(), e.mma_ops.end(), op) != e.mma_ops.end() &&
        std::any_of(body.begin(), body.end(), [&](const Instr* i) { return i->is(op); }))
      gmma = op;
  if (!gmma.empty()) {
    int hgmma = 0, waited = 0;
    bool pending = false;
    for (const Instr* i : body) {
      if (i->is(gmma)) {
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
                        std::to_string(hgmma) + " " + gmma + ", " + std::to_string(waited) +
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

}  // namespace pipegemm::sass
