// Registers per thread without a GPU: `cuobjdump -res-usage` of our own executable.
// Hook: src/sass/ (pipegemm sass) has its own cuobjdump locator and parser; this file keeps
// the planner independent of it and only needs REG / SHARED of one kernel.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "pipegemm/planner.hpp"

namespace pipegemm::plan {
namespace {

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string find_cuobjdump() {
  if (const char* e = std::getenv("PIPEGEMM_CUOBJDUMP"))
    if (executable(e)) return e;
#ifdef PIPEGEMM_CUOBJDUMP_DEFAULT  // found at configure time (cmake/deps.cmake)
  if (executable(PIPEGEMM_CUOBJDUMP_DEFAULT)) return PIPEGEMM_CUOBJDUMP_DEFAULT;
#endif
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (executable(dir + "/cuobjdump")) return dir + "/cuobjdump";
  }
  if (const char* home = std::getenv("CUDA_HOME"))
    if (executable(std::string(home) + "/bin/cuobjdump")) return std::string(home) + "/bin/cuobjdump";
  if (executable("/usr/local/cuda/bin/cuobjdump")) return "/usr/local/cuda/bin/cuobjdump";
  return "";
}

int field(const std::string& line, const char* key) {
  size_t p = line.find(key);
  if (p == std::string::npos) return -1;
  return std::atoi(line.c_str() + p + std::string(key).size());
}

// SassExpect::symbol semantics: a substring, '*' matching anything ("k4_seed_kernel*F32F16F16F32").
bool symbol_in(const std::string& name, const std::string& symbol) {
  size_t at = 0, from = 0;
  while (from <= symbol.size()) {
    size_t star = symbol.find('*', from);
    std::string part = symbol.substr(from, star == std::string::npos ? std::string::npos : star - from);
    if (!part.empty()) {
      size_t p = name.find(part, at);
      if (p == std::string::npos) return false;
      at = p + part.size();
    }
    if (star == std::string::npos) break;
    from = star + 1;
  }
  return !symbol.empty();
}

// "sm_90a" -> 90 (and *accel = true)
int arch_number(const std::string& a, bool* accel) {
  if (a.rfind("sm_", 0) != 0) return 0;
  *accel = !a.empty() && a.back() == 'a';
  return std::atoi(a.c_str() + 3);
}

}  // namespace

bool res_usage_from_text(const std::string& text, const std::string& symbol, int sm, ResUsage* out,
                         std::string* why) {
  struct Hit { std::string arch; int regs, shared; };
  std::vector<Hit> hits;
  std::vector<std::string> archs;
  std::string arch, fn;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    size_t a = line.find("arch = ");
    if (a != std::string::npos) {
      arch = line.substr(a + 7);
      while (!arch.empty() && (arch.back() == ' ' || arch.back() == '\r')) arch.pop_back();
      archs.push_back(arch);
      fn.clear();
      continue;
    }
    size_t f = line.find("Function ");
    if (f != std::string::npos) {
      fn = line.substr(f + 9);
      if (!fn.empty() && fn.back() == ':') fn.pop_back();
    }
    if (!fn.empty() && line.find("REG:") != std::string::npos) {  // same line or the next one
      if (symbol_in(fn, symbol))
        hits.push_back({arch, field(line, "REG:"), field(line, "SHARED:")});
      fn.clear();
    }
  }
  // The cubin that runs on sm: same major, newest not above sm; sm_90a preferred on sm_90.
  int best = -1;
  bool best_accel = false;
  for (const Hit& h : hits) {
    bool accel = false;
    int n = arch_number(h.arch, &accel);
    if (n / 10 != sm / 10 || n > sm) continue;
    if (n > best || (n == best && accel && !best_accel)) { best = n; best_accel = accel; }
  }
  if (best < 0) {
    std::string have;
    for (const std::string& x : archs)
      if (have.find(x) == std::string::npos) have += (have.empty() ? "" : ", ") + x;
    *why = hits.empty() ? "no kernel named like '" + symbol + "' in the binary"
                        : "no cubin for sm_" + std::to_string(sm) + " (the binary has " + have + ")";
    return false;
  }
  ResUsage r;
  r.cubin_arch = "sm_" + std::to_string(best) + (best_accel ? "a" : "");
  for (const Hit& h : hits)
    if (h.arch == r.cubin_arch) {
      ++r.matches;
      if (h.regs > r.regs) {
        r.regs = h.regs;
        // sm_90+ ELF shared size counts the driver's 1 KB per-CTA reservation.
        r.static_smem = best >= 90 ? std::max(h.shared - 1024, 0) : std::max(h.shared, 0);
      }
    }
  *out = r;
  return r.regs > 0;
}

bool res_usage_from_cuobjdump(const std::string& symbol, int sm, ResUsage* out, std::string* why,
                              const std::string& binary) {
  if (symbol.empty()) {
    *why = "the variant registers no kernel symbol";
    return false;
  }
  const std::string exe = find_cuobjdump();
  if (exe.empty()) {
    *why = "cuobjdump not found ($PIPEGEMM_CUOBJDUMP, the configure-time path, PATH, /usr/local/cuda/bin)";
    return false;
  }
  // /proc/self/exe must be resolved here: in the child it would name cuobjdump itself.
  std::string file = binary;
  if (binary == "/proc/self/exe") {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) {
      *why = "cannot resolve /proc/self/exe";
      return false;
    }
    file.assign(buf, size_t(n));
  }
  // Cached per process: the ranking asks once per variant.
  static std::string cached_for, cached_text;
  if (cached_for != file) {
    std::string cmd = "'" + exe + "' -res-usage '" + file + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      *why = "could not run " + exe;
      return false;
    }
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    pclose(p);
    cached_for = file;
    cached_text = text;
  }
  return res_usage_from_text(cached_text, symbol, sm, out, why);
}

}  // namespace pipegemm::plan
