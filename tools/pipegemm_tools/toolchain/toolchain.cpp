// cuobjdump for `pipegemm plan` and `pipegemm sass`: locate, version, run, parse (process.cpp
// runs programs without a shell and finds this binary).
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pipegemm_tools/toolchain.hpp"

#ifndef PIPEGEMM_CUOBJDUMP_DEFAULT  // found at configure time (cmake/deps.cmake)
#define PIPEGEMM_CUOBJDUMP_DEFAULT ""
#endif

namespace pipegemm::toolchain {

namespace {

std::string first_line(const std::string& s) {
  size_t a = s.find_first_not_of(" \n\t");
  if (a == std::string::npos) return "";
  size_t b = s.find('\n', a);
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

const char* const kInstall =
    "python3 -m pip install 'nvidia-cuda-cuobjdump>=13.0,<14' 'nvidia-cuda-nvdisasm>=13.0,<14' (scripts/setup.sh)";

}  // namespace

std::vector<std::string> cuda_tool_candidates(const std::string& name) {
  std::vector<std::string> out;
  if (const char* p = std::getenv("PATH")) {
    std::stringstream dirs(p);
    std::string d;
    while (std::getline(dirs, d, ':'))
      if (!d.empty()) out.push_back(d + "/" + name);  // an empty entry would mean the cwd: skipped
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) out.push_back(std::string(home) + "/bin/" + name);
  out.push_back("/usr/local/cuda/bin/" + name);
  return out;
}

std::vector<std::string> cuobjdump_candidates() {
  std::vector<std::string> out;
  if (const std::string baked = PIPEGEMM_CUOBJDUMP_DEFAULT; !baked.empty()) out.push_back(baked);
  for (std::string& c : cuda_tool_candidates("cuobjdump")) out.push_back(std::move(c));
  return out;
}

bool locate_cuobjdump(std::string* path, std::string* err) {
  if (const char* env = std::getenv("PIPEGEMM_CUOBJDUMP"); env && *env) {
    if (executable(env)) {
      *path = env;
      return true;
    }
    // Set on purpose: falling back to another cuobjdump would hide the mistake.
    *err = std::string("PIPEGEMM_CUOBJDUMP=") + env + " is not an executable file";
    return false;
  }
  for (const std::string& c : cuobjdump_candidates())
    if (executable(c)) {
      *path = c;
      return true;
    }
  const std::string baked = PIPEGEMM_CUOBJDUMP_DEFAULT;
  const char* home = std::getenv("CUDA_HOME");
  *err = "cuobjdump not found (tried $PIPEGEMM_CUOBJDUMP, " +
         (baked.empty() ? std::string("no path found at configure time") : "the configured " + baked) +
         ", PATH, " + (home && *home ? std::string(home) + "/bin" : std::string("$CUDA_HOME/bin (unset)")) +
         " and /usr/local/cuda/bin). Install it with: " + kInstall +
         ", or set PIPEGEMM_CUOBJDUMP=/path/to/cuobjdump";
  return false;
}

bool cuobjdump_version(const std::string& exe, std::string* version, std::string* err) {
  RunResult r;
  if (!run(exe, {"--version"}, &r, err)) return false;
  size_t p = r.out.find("release ");
  if (r.status != 0 || p == std::string::npos) {
    *err = exe + " --version did not print a release (is it cuobjdump?): " + first_line(r.out + r.err);
    return false;
  }
  p += 8;
  size_t q = r.out.find_first_of(", \n", p);
  *version = r.out.substr(p, q == std::string::npos ? std::string::npos : q - p);
  if (std::atoi(version->c_str()) < 13) {
    *err = exe + " is release " + *version +
           "; CUDA 13 cubins need cuobjdump >= 13.0 (pip install 'nvidia-cuda-cuobjdump>=13.0,<14')";
    return false;
  }
  return true;
}

bool run_cuobjdump(const std::string& exe, const std::vector<std::string>& args, const std::string& file,
                   std::string* out, std::string* err) {
  struct stat st{};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = file + ": no such file";
    return false;
  }
  std::vector<std::string> argv = args;
  argv.push_back(file);
  RunResult r;
  if (!run(exe, argv, &r, err)) return false;
  const std::string why = first_line(r.err);
  if (r.err.find("nvdisasm") != std::string::npos) {
    *err = "cuobjdump cannot disassemble without nvdisasm: " + why +
           ". Install it beside cuobjdump: python3 -m pip install 'nvidia-cuda-nvdisasm>=13.0,<14' (scripts/setup.sh)";
    return false;
  }
  if (r.err.find("does not contain device code") != std::string::npos) {
    *err = file + ": not a CUDA binary (no device code in it; a host-only file, or a cubin cut short)";
    return false;
  }
  if (r.status != 0) {
    *err = file + ": cuobjdump failed (exit " + std::to_string(r.status) + "): " +
           (why.empty() ? "no message" : why) + " -- not an executable, object, library or cubin with CUDA code?";
    return false;
  }
  *out = std::move(r.out);
  return true;
}

bool symbol_matches(std::string_view name, std::string_view symbol) {
  if (symbol.empty()) return false;
  size_t at = 0;
  for (;;) {
    const size_t star = symbol.find('*');
    const std::string_view part = symbol.substr(0, star);
    if (!part.empty()) {
      const size_t p = name.find(part, at);
      if (p == std::string_view::npos) return false;
      at = p + part.size();
    }
    if (star == std::string_view::npos) return true;
    symbol.remove_prefix(star + 1);
  }
}

// ----- cuobjdump -res-usage -----------------------------------------------------------------

ResUsageReport parse_res_usage(std::string_view text) {
  ResUsageReport r;
  std::string arch;
  size_t open = SIZE_MAX;  // the function whose REG line is due
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    std::string_view t = trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (starts_with(t, "arch = ")) {  // a new ELF image
      arch = std::string(trim(t.substr(7)));
      bool seen = false;
      for (const std::string& a : r.archs) seen = seen || a == arch;
      if (!seen) r.archs.push_back(arch);
      open = SIZE_MAX;
      continue;
    }
    if (starts_with(t, "Function ")) {
      std::string_view rest = t.substr(9);
      const size_t reg = rest.find("REG:");
      std::string_view head = trim(rest.substr(0, reg));
      open = SIZE_MAX;
      if (head.size() < 2 || head.back() != ':') continue;  // prose, not a function header
      head.remove_suffix(1);
      r.functions.push_back({std::string(trim(head)), arch});
      open = r.functions.size() - 1;
      if (reg == std::string_view::npos) continue;
      t = rest.substr(reg);
    }
    if (open == SIZE_MAX || !starts_with(t, "REG:")) continue;
    FunctionUsage& f = r.functions[open];
    open = SIZE_MAX;
    size_t p = 0;
    while (p < t.size()) {  // "REG:72 STACK:0 SHARED:16384 LOCAL:0 CONSTANT[0]:384 ..."
      const size_t sp = t.find_first_of(" \t", p);
      const std::string_view kv = t.substr(p, sp == std::string_view::npos ? std::string_view::npos : sp - p);
      p = sp == std::string_view::npos ? t.size() : sp + 1;
      const size_t colon = kv.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view k = kv.substr(0, colon);
      const int v = std::atoi(std::string(kv.substr(colon + 1)).c_str());
      if (k == "REG") f.regs = v;
      else if (k == "STACK") f.stack = v;
      else if (k == "SHARED") f.shared = v;
      else if (k == "LOCAL") f.local = v;
    }
  }
  return r;
}

bool res_usage(const std::string& exe, const std::string& file, ResUsageReport* out, std::string* err) {
  std::string text;
  if (!run_cuobjdump(exe, {"-res-usage"}, file, &text, err)) return false;
  *out = parse_res_usage(text);
  return true;
}

}  // namespace pipegemm::toolchain
