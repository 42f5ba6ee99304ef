// SASS proof of load/compute overlap, from machine code alone: no GPU needed.
//
//   cuobjdump -sass / -res-usage  ->  parse_sass / parse_res_usage  ->  Listing (records)
//   Listing + expect_for(variant)      ->  check_function  ->  Verdict (text or JSON)
//
// The rule that is checked, the loop detection and its limits are written down in docs/sass.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::sass {

// One SASS instruction as cuobjdump prints it, e.g.
//   /*1700*/  @!P1 LDGSTS.E.BYPASS.LTC128B.128 [R151], [R142.64] ;
struct Instr {
  uint32_t addr = 0;
  std::string pred;                   // "@!P1", "" when unpredicated
  std::string opcode;                 // "LDGSTS" (mnemonic before the first '.')
  std::vector<std::string> mods;      // {"E", "BYPASS", "LTC128B", "128"}
  std::vector<std::string> operands;  // {"[R151]", "[R142.64]"}
  std::vector<std::string> labels;    // labels naming this address (".L_x_12"), if printed
  int64_t target = -1;                // branch target address (BRA/BRX/JMP/CALL), else -1
  std::string text;                   // the instruction as printed, without address and ';'

  bool is(std::string_view op) const { return opcode == op; }
  bool has_mod(std::string_view m) const;
  bool branch() const;           // BRA / BRX / JMP / JMX (not CALL)
  bool backward_branch() const { return branch() && target >= 0 && uint32_t(target) <= addr; }
};

// `cuobjdump -res-usage` per function; -1 = not reported.
struct Resources {
  int regs = -1, stack = -1, shared = -1, local = -1;
};

struct Function {
  std::string name;  // as printed (mangled)
  std::string arch;  // "sm_80", "sm_90a"
  std::vector<Instr> code;
  Resources res;
  int index_of(uint32_t addr) const;  // -1 when no instruction starts there
};

struct Listing {
  std::vector<Function> functions;
  std::vector<std::string> elf_archs;      // every arch with code in the file (load_listing)
  std::vector<std::string> archs() const;  // elf_archs, then those of the functions, distinct
};

// Parses `cuobjdump -sass` (or nvdisasm) text into records. Accepts branch targets printed as
// addresses ("BRA 0x8e0") or labels ("BRA `(.L_x_12)" with ".L_x_12:" lines). Fails, with the
// reason, when the text holds no function with code.
bool parse_sass(std::string_view text, Listing* out, std::string* err);
// Adds REG/STACK/SHARED/LOCAL from `cuobjdump -res-usage` text (toolchain::parse_res_usage) to
// the matching (name, arch).
void parse_res_usage(std::string_view text, Listing* l);

// sm number of "sm_90a" -> 90 (0 when unparseable).
int sm_of(std::string_view arch);

// toolchain::symbol_matches: does a mangled name match Variant::symbol? The symbol is a substring; '*' inside it matches
// anything, so "k4_seed_kernel*F32F16F16F32" tells two instantiations of one template apart.
bool symbol_matches(std::string_view name, std::string_view symbol);

// ----- expectations -------------------------------------------------------------------------

// What the checker looks for in one kernel's main loop.
struct Expect {
  std::vector<std::string> load_ops;  // global/async loads of the next stage
  std::vector<std::string> mma_ops;   // the compute instruction
  bool expect_overlap = true;
  int mma_per_k_tile = 0;             // 0 = not checked
  bool warp_specialized = false;
  int cta_threads = 0;                // > 0: a named barrier over fewer threads is one warp group's
  int load_bytes = 0;                 // > 0: a load of the loop moves this many bytes per thread
                                      // (LDG.E.U16 = 2, LDG.E = 4, .64 = 8, .128 = 16); 0 = not checked
  // A registers-only pipeline (no smem, skinny): what holds the next iteration is the scoreboard
  // wait of the first instruction reading a load's registers -- in the control bits, not a
  // BAR/DEPBAR/mbarrier instruction -- so the gate is that reader, found by the overlap check.
  bool gate_by_registers = false;
};
// A registered kernel's expectations, derived from its typed fields (Variant::mech, tile).
Expect expect_for(const Variant& v);
// For functions that no registered variant claims (a FILE given on the command line): any
// global/async load, any tensor-core MMA, overlap expected, count unchecked.
Expect generic_expect();

// ----- the check ----------------------------------------------------------------------------

struct Loop {
  int head = 0, branch = 0;  // indices into Function::code; the body is [head, branch]
  int mmas = 0, loads = 0;
};
// Candidate loops: backward branches, widest per head, minus spans that run through an
// unpredicated EXIT (a retry path placed after the function's end that jumps back in).
std::vector<Loop> find_loops(const Function& f, const Expect& e);
// A loop's instructions in execution order: [head, branch], with any out-of-line block (straight
// code reached by a branch out of the loop that jumps straight back in) spliced in at its branch.
std::vector<int> loop_body(const Function& f, const Loop& l);

struct Check {
  std::string name;  // "main loop", "overlap", "gate", "mma count", "spills", "wgmma"
  bool ok = false;
  std::string detail;
};

// A cited instruction: where it is and what it says.
struct Cite {
  int64_t addr = -1;  // -1 = none
  std::string text;
};

struct Verdict {
  std::string variant;   // registry name, or "" for a function nobody registered
  std::string form;      // which of the variant's kernels (KernelInstance::form; "" for its only one)
  std::string function;  // mangled name
  std::string arch;
  Expect expect;
  bool loop_found = false;
  uint32_t loop_begin = 0, loop_end = 0;  // addresses of the loop head and its backward branch
  int mma_in_loop = 0, loads_in_loop = 0, unroll = 0;
  int mma_overlapped = 0;  // MMAs issued after a next-stage load, no BAR.SYNC or wait on it between
  int mma_in_flight = 0;   // MMAs issued while some load of the loop is still in flight
  bool overlap = false;    // the overlap rule holds (docs/sass.md)
  bool pass = false;       // overlap == expect_overlap and every other check holds
  Cite load, mma, gate, blocker;  // witness: load -> mma, the wait that gates, or what blocked
  Cite back_edge;                 // the branch that closes the main loop
  std::vector<Check> checks;
  std::string status() const;  // "overlap proven", "NOT overlapped", "not overlapped (expected)", ...
  std::string kernel() const;  // "<variant> <form>", "<variant>", or the function nobody registered
};

Verdict check_function(const Function& f, const Expect& e);
// Human-readable proof: the verdict line, each check, the witness instructions.
std::string format_verdict(const Verdict& v);

// ----- cuobjdump ----------------------------------------------------------------------------

// Forwards to pipegemm_tools/toolchain.hpp (shared with the planner): the search order there,
// $PIPEGEMM_CUOBJDUMP first; on failure `err` says what was tried and how to install it.
bool locate_cuobjdump(std::string* path, std::string* err);
// "13.5" from `cuobjdump --version`; refuses releases older than 13 (see docs/sass.md).
bool cuobjdump_version(const std::string& exe, std::string* version, std::string* err);
// Runs cuobjdump -res-usage and -sass on `file` and parses both; with `want`, only the functions
// it accepts (mangled name, arch; arch is "" in a lone cubin) are disassembled. Clear errors for a missing file, a file without
// device code, PTX only (no SASS), or a cuobjdump that cannot disassemble. A `want` that accepts
// nothing gives an empty listing (true): the caller knows what it looked for.
bool load_listing(const std::string& cuobjdump, const std::string& file, Listing* out, std::string* err,
                  const std::function<bool(const std::string& name, const std::string& arch)>& want = {});

}  // namespace pipegemm::sass
