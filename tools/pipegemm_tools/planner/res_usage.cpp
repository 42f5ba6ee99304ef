// Registers per thread without a GPU: `cuobjdump -res-usage` of our own executable, through the
// toolchain `pipegemm sass` uses (pipegemm_tools/toolchain.hpp). What is left here is the
// planner's part: which kernel and which cubin of the report count for a symbol on an sm.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "pipegemm_tools/planner.hpp"
#include "pipegemm_tools/toolchain.hpp"

namespace pipegemm::plan {
namespace {

// "sm_90a" -> 90 (and *accel = true)
int arch_number(const std::string& a, bool* accel) {
  if (a.rfind("sm_", 0) != 0) return 0;
  *accel = a.back() == 'a';
  return std::atoi(a.c_str() + 3);
}

// The cubin that runs on sm: same major, newest not above sm; sm_90a preferred on sm_90.
bool pick(const toolchain::ResUsageReport& rep, const std::string& symbol, int sm, ResUsage* out,
          std::string* why) {
  std::vector<const toolchain::FunctionUsage*> hits;
  for (const toolchain::FunctionUsage& f : rep.functions) {
    if (f.regs < 0 || !toolchain::symbol_matches(f.name, symbol)) continue;
    // One kernel printed twice for an arch (two ELF images) is still one kernel.
    const bool dup = std::any_of(hits.begin(), hits.end(),
                                 [&](const auto* h) { return h->name == f.name && h->arch == f.arch; });
    if (!dup) hits.push_back(&f);
  }
  int best = -1;
  bool best_accel = false;
  for (const toolchain::FunctionUsage* h : hits) {
    bool accel = false;
    int n = arch_number(h->arch, &accel);
    if (n / 10 != sm / 10 || n > sm) continue;
    if (n > best || (n == best && accel && !best_accel)) { best = n; best_accel = accel; }
  }
  if (best < 0) {
    std::string have;
    for (const std::string& x : rep.archs) have += (have.empty() ? "" : ", ") + x;
    *why = hits.empty() ? "no kernel named like '" + symbol + "' in the binary"
                        : "no cubin for sm_" + std::to_string(sm) + " (the binary has " + have + ")";
    return false;
  }
  ResUsage r;
  r.cubin_arch = "sm_" + std::to_string(best) + (best_accel ? "a" : "");
  for (const toolchain::FunctionUsage* h : hits)
    if (h->arch == r.cubin_arch) {
      ++r.matches;
      if (h->regs > r.regs) {
        r.regs = h->regs;
        // sm_90+ ELF shared size counts the driver's 1 KB per-CTA reservation.
        r.static_smem = best >= 90 ? std::max(h->shared - 1024, 0) : std::max(h->shared, 0);
      }
    }
  *out = r;
  if (r.regs <= 0) *why = "cuobjdump reports no registers for '" + symbol + "' in the " + r.cubin_arch + " cubin";
  return r.regs > 0;
}

}  // namespace

bool res_usage_from_text(const std::string& text, const std::string& symbol, int sm, ResUsage* out,
                         std::string* why) {
  return pick(toolchain::parse_res_usage(text), symbol, sm, out, why);
}

bool res_usage_from_cuobjdump(const std::string& symbol, int sm, ResUsage* out, std::string* why,
                              const std::string& binary) {
  if (symbol.empty()) {
    *why = "the variant registers no kernel symbol";
    return false;
  }
  std::string exe;
  if (!toolchain::locate_cuobjdump(&exe, why)) return false;
  std::string file = binary;
  if (binary == "/proc/self/exe" && !toolchain::self_exe(&file, why)) return false;
  // Cached per process, failures too: the ranking asks once per variant.
  static std::mutex mu;
  static std::string cached_exe, cached_file, cached_err;
  static bool cached_ok = false;
  static toolchain::ResUsageReport cached;
  std::lock_guard<std::mutex> lock(mu);
  if (cached_exe != exe || cached_file != file) {
    std::string version;
    cached_exe = exe;
    cached_file = file;
    cached_err.clear();
    cached = {};
    cached_ok = toolchain::cuobjdump_version(exe, &version, &cached_err) &&
                toolchain::res_usage(exe, file, &cached, &cached_err);
  }
  if (!cached_ok) {
    *why = cached_err;
    return false;
  }
  return pick(cached, symbol, sm, out, why);
}

}  // namespace pipegemm::plan
