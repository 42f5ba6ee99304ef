// The CUDA binary toolchain as `pipegemm plan` and `pipegemm sass` use it: finding cuobjdump
// (PyPI nvidia-cuda-cuobjdump 13.x, with nvdisasm beside it or on PATH: nvidia-cuda-nvdisasm),
// running it without a shell, and reading its `-res-usage` report. One copy for both tools.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipegemm::toolchain {

// ----- text ---------------------------------------------------------------------------------
// The two helpers every reader of cuobjdump output needs (toolchain, sass parser).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}
inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// ----- programs -----------------------------------------------------------------------------

// A regular file this process may execute.
bool executable(const std::string& path);

struct RunResult {
  int status = -1;   // exit code; 128 + signal when killed by one
  std::string out;   // everything written to stdout
  std::string err;   // everything written to stderr
};
// Runs `exe` (a path; PATH is not searched) with `args` exactly as given: posix_spawn, no shell,
// so spaces, quotes and `$;|*` reach the program unchanged. stdout and stderr go through temp
// files (SASS listings reach megabytes). False only when it could not be started (*err says why);
// a program that runs and fails is true with its status.
bool run(const std::string& exe, const std::vector<std::string>& args, RunResult* result, std::string* err);

// The running executable's path. Resolve it before handing it to a child: there /proc/self/exe
// names the child.
bool self_exe(std::string* path, std::string* err);

// Where a CUDA command-line tool `name` may be, in order: each PATH entry, $CUDA_HOME/bin,
// /usr/local/cuda/bin (cuobjdump, ncu).
std::vector<std::string> cuda_tool_candidates(const std::string& name);

// ----- cuobjdump ----------------------------------------------------------------------------

// Finds cuobjdump: $PIPEGEMM_CUOBJDUMP (an error when set but not executable), else the path found
// at configure time, else PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. On failure *err says what was
// tried and how to install it.
bool locate_cuobjdump(std::string* path, std::string* err);
// Where locate_cuobjdump looks when $PIPEGEMM_CUOBJDUMP is unset, in order (from the environment now).
std::vector<std::string> cuobjdump_candidates();
// "13.5" from `exe --version`; refuses releases older than 13 (they cannot read CUDA 13 cubins).
bool cuobjdump_version(const std::string& exe, std::string* version, std::string* err);

// Runs `exe args... file` and turns a failure into the message a user needs: no such file, a
// file without device code, no nvdisasm to disassemble with, any other non-zero exit. *out is
// cuobjdump's stdout.
bool run_cuobjdump(const std::string& exe, const std::vector<std::string>& args, const std::string& file,
                   std::string* out, std::string* err);

// Does a mangled name match a registry symbol (Variant::symbol)? The symbol is a substring; '*'
// inside it matches anything, so "k4_seed_kernel*F32F16F16F32" tells two instantiations of one
// template apart. Pieces must appear in order; an empty symbol matches nothing.
bool symbol_matches(std::string_view name, std::string_view symbol);

// ----- cuobjdump -res-usage -----------------------------------------------------------------

// One function of one ELF image; -1 = not reported.
struct FunctionUsage {
  std::string name;  // mangled, as printed
  std::string arch;  // "sm_90a"; "" in a lone cubin (no "arch =" line)
  int regs = -1, stack = -1, shared = -1, local = -1;
};
struct ResUsageReport {
  std::vector<FunctionUsage> functions;  // one per "Function" header, in print order (a kernel
                                         // in two ELF images of one arch is there twice)
  std::vector<std::string> archs;        // every "arch =" in the text, distinct, in order
};
// Parses `cuobjdump -res-usage` text:
//   arch = sm_80 ... Resource usage: ... Function <name>:\n  REG:91 STACK:0 SHARED:0 LOCAL:0 ...
// (REG... on the Function line itself is accepted too). Never fails; unknown lines are skipped.
ResUsageReport parse_res_usage(std::string_view text);
// `exe -res-usage file`, parsed (run_cuobjdump's errors).
bool res_usage(const std::string& exe, const std::string& file, ResUsageReport* out, std::string* err);

}  // namespace pipegemm::toolchain
