// Where a function's main loop is and what overlaps in it: loop candidates, the loop body in
// execution order, and the window of MMAs a load stays in flight for (docs/sass.md).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "pipegemm_tools/sass/check_detail.hpp"

namespace pipegemm::sass {

namespace detail {

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

bool is_partial_barrier(const Instr& i, int cta_threads) {
  if (!is_cta_barrier(i) || cta_threads <= 0 || i.operands.size() < 2) return false;
  const std::string& n = i.operands[1];
  char* end = nullptr;
  const long count = std::strtol(n.c_str(), &end, 0);
  return !n.empty() && end == n.c_str() + n.size() && count > 0 && count < cta_threads;
}

// Anything that can hold the next iteration until data or peers are ready.
bool is_wait(const Instr& i) {
  if (is_cta_barrier(i) || i.is("DEPBAR")) return true;
  if (i.is("SYNCS")) return i.has_mod("PHASECHK");  // mbarrier try_wait / test_wait
  return false;
}

namespace {

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

}  // namespace

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

}  // namespace detail

using detail::in;

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

}  // namespace pipegemm::sass
