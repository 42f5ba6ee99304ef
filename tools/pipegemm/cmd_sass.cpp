// `pipegemm sass`: the SASS proof of load/compute overlap (seed 004 step 7) for every registered
// kernel, or for the kernels of any executable, object or cubin -- no GPU needed.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include <unistd.h>

#include "cli.hpp"
#include "pipegemm/sass.hpp"

namespace pipegemm::cli {

namespace {

struct SassOpts {
  std::string file;
  std::vector<std::string> kernels;
  std::vector<std::string> archs{"all"};
  std::string function;
  bool json = false;
  bool brief = false;
};

std::string norm_arch(std::string a) {
  if (a.rfind("sm_", 0) != 0) a = "sm_" + a;
  return a;
}

std::string hex(int64_t a) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%04llx", static_cast<long long>(a));
  return b;
}

nlohmann::json cite_json(const sass::Cite& c) {
  if (c.addr < 0) return nullptr;
  return {{"addr", hex(c.addr)}, {"instr", c.text}};
}

nlohmann::json verdict_json(const sass::Verdict& v) {
  nlohmann::json checks = nlohmann::json::array();
  for (const sass::Check& c : v.checks) checks.push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}});
  nlohmann::json j = {{"variant", v.variant.empty() ? nullptr : nlohmann::json(v.variant)},
                      {"function", v.function},
                      {"arch", v.arch},
                      {"status", v.status()},
                      {"pass", v.pass},
                      {"overlap", v.overlap},
                      {"expect_overlap", v.expect.expect_overlap},
                      {"mma_in_loop", v.mma_in_loop},
                      {"mma_overlapped", v.mma_overlapped},
                      {"mma_in_flight", v.mma_in_flight},
                      {"mma_per_k_tile", v.expect.mma_per_k_tile},
                      {"unroll", v.unroll},
                      {"loads_in_loop", v.loads_in_loop},
                      {"load", cite_json(v.load)},
                      {"mma", cite_json(v.mma)},
                      {"gate", cite_json(v.gate)},
                      {"blocker", cite_json(v.blocker)},
                      {"checks", checks}};
  j["loop"] = v.loop_found ? nlohmann::json{{"begin", hex(v.loop_begin)}, {"end", hex(v.loop_end)}} : nlohmann::json(nullptr);
  return j;
}

int run_sass(const SassOpts& o) {
  // ----- what to check: registry variants (by name) ------------------------------------------
  std::vector<const Variant*> chosen;
  for (const std::string& k : o.kernels) {
    if (k == "all") continue;
    const Variant* v = find_variant(k);
    if (!v) return fail_usage("unknown kernel '" + k + "' (see `pipegemm list`)");
    if (v->sass.symbol.empty())
      return fail_usage("'" + k + "' has no machine code of ours to check (a " + v->family + " peer)");
    chosen.push_back(v);
  }
  const bool explicit_kernels = !chosen.empty();
  if (!explicit_kernels)
    for (const Variant& v : variants())
      if (!v.sass.symbol.empty()) chosen.push_back(&v);

  std::string tool, err, version;
  if (!sass::locate_cuobjdump(&tool, &err)) {
    std::cerr << "pipegemm: error: " << err << "\n";
    return kUsage;
  }
  if (!sass::cuobjdump_version(tool, &version, &err)) {
    std::cerr << "pipegemm: error: " << err << "\n";
    return kUsage;
  }
  const bool own = o.file.empty();
  // Resolved here: cuobjdump reading /proc/self/exe would read itself.
  std::string file = o.file;
  if (own) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return fail_usage("cannot resolve /proc/self/exe; pass the executable as FILE");
    file.assign(buf, size_t(n));
  }
  // Disassemble only what will be checked: our variants' functions, or the FILE's (--function).
  auto want = [&](const std::string& name, const std::string& arch) {
    if (!o.function.empty() && name.find(o.function) == std::string::npos) return false;
    if (!arch.empty() && std::find(o.archs.begin(), o.archs.end(), "all") == o.archs.end()) {
      bool asked = false;
      for (const std::string& a : o.archs) asked = asked || norm_arch(a) == arch;
      if (!asked) return false;
    }
    if (!own && !explicit_kernels) return true;
    for (const Variant* v : chosen)
      if (sass::symbol_matches(name, v->sass.symbol)) return true;
    return false;
  };
  sass::Listing listing;
  if (!sass::load_listing(tool, file, &listing, &err, want)) {
    std::cerr << "pipegemm: error: " << (own ? "this executable: " : "") << err << "\n";
    return kUsage;
  }

  // ----- which archs --------------------------------------------------------------------------
  const std::vector<std::string> present = listing.archs();
  std::vector<std::string> archs;
  for (const std::string& a : o.archs) {
    if (a == "all") {
      archs = present;
      break;
    }
    const std::string n = norm_arch(a);
    if (std::find(present.begin(), present.end(), n) == present.end()) {
      std::string have;
      for (const std::string& p : present) have += (have.empty() ? "" : ", ") + p;
      return fail_usage((own ? std::string("this build") : o.file) + " has no " + n + " code (it has " + have + ")");
    }
    archs.push_back(n);
  }

  // ----- match and check ----------------------------------------------------------------------
  std::vector<sass::Verdict> verdicts;
  std::vector<std::string> notes;
  for (const std::string& arch : archs) {
    const int sm = sass::sm_of(arch);
    std::vector<bool> claimed(listing.functions.size(), false);
    for (const Variant* v : chosen) {
      if (std::string bad = sass::validate(v->sass); !bad.empty()) {
        std::cerr << "pipegemm: error: registry entry " << v->name << ": " << bad << "\n";
        return kFail;
      }
      bool found = false;
      for (size_t i = 0; i < listing.functions.size(); ++i) {
        const sass::Function& f = listing.functions[i];
        if (f.arch != arch || !sass::symbol_matches(f.name, v->sass.symbol)) continue;
        if (!o.function.empty() && f.name.find(o.function) == std::string::npos) continue;
        found = claimed[i] = true;
        sass::Verdict vd = sass::check_function(f, sass::expect_from(v->sass));
        vd.variant = v->name;
        verdicts.push_back(std::move(vd));
      }
      const bool applies = sm >= v->min_sm && (v->max_sm == 0 || sm <= v->max_sm);
      if (!found && applies && (own || explicit_kernels) && o.function.empty()) {
        // Our own build must hold every registered kernel for every arch it was built for.
        sass::Verdict vd;
        vd.variant = v->name;
        vd.function = "(symbol " + v->sass.symbol + ")";
        vd.arch = arch;
        vd.expect = sass::expect_from(v->sass);
        vd.checks.push_back({"present", false, "no function matching '" + v->sass.symbol + "' in the " + arch + " code"});
        verdicts.push_back(std::move(vd));
      }
    }
    if (own) continue;
    // Any other kernel of the given file: the generic expectation (overlap, count unchecked).
    for (size_t i = 0; i < listing.functions.size(); ++i) {
      const sass::Function& f = listing.functions[i];
      if (claimed[i] || f.arch != arch || explicit_kernels) continue;
      if (!o.function.empty() && f.name.find(o.function) == std::string::npos) continue;
      const sass::Expect e = sass::generic_expect();
      bool has_mma = false;
      for (const sass::Instr& in : f.code)
        has_mma = has_mma || std::find(e.mma_ops.begin(), e.mma_ops.end(), in.opcode) != e.mma_ops.end();
      if (!has_mma) {
        notes.push_back(f.name + " [" + arch + "]: no tensor-core MMA, not checked");
        continue;
      }
      verdicts.push_back(sass::check_function(f, e));
    }
  }
  if (verdicts.empty()) {
    std::string what = o.function.empty() ? "" : " matching '" + o.function + "'";
    return fail_usage("no kernel" + what + " to check in " + (own ? std::string("this build") : o.file) +
                      (own ? "" : " (no registered kernel and no function with HMMA/IMMA/HGMMA)"));
  }

  int failed = 0;
  for (const sass::Verdict& v : verdicts) failed += !v.pass;
  if (o.json) {
    nlohmann::json j = {{"file", own ? "(this executable)" : o.file},
                        {"cuobjdump", tool},
                        {"cuobjdump_version", version},
                        {"passed", int(verdicts.size()) - failed},
                        {"failed", failed},
                        {"notes", notes}};
    j["verdicts"] = nlohmann::json::array();
    for (const sass::Verdict& v : verdicts) j["verdicts"].push_back(verdict_json(v));
    std::cout << j.dump(2) << "\n";
  } else {
    if (!o.brief) {
      std::cout << "SASS overlap proof (seed 004 step 7) of " << (own ? "this build's kernels" : o.file)
                << ", cuobjdump " << version << " (" << tool << ")\n"
                << "rule: a next-stage load issues before an MMA of the loop with no BAR.SYNC or wait on it "
                   "between, a wait gates the next iteration, MMA count per k_tile unchanged, no spills "
                   "(docs/sass.md)\n\n";
      for (const sass::Verdict& v : verdicts) std::cout << sass::format_verdict(v) << "\n";
      for (const std::string& n : notes) std::cout << "note: " << n << "\n";
    } else {
      for (const sass::Verdict& v : verdicts)  // brief: the details of what failed only
        if (!v.pass) std::cout << sass::format_verdict(v) << "\n";
    }
    std::vector<std::vector<std::string>> rows;
    for (const sass::Verdict& v : verdicts) {
      std::string loop = v.loop_found ? hex(v.loop_begin) + ".." + hex(v.loop_end) : "-";
      std::string mma = v.loop_found ? std::to_string(v.mma_overlapped) + "/" + std::to_string(v.mma_in_loop) : "-";
      if (v.loop_found && !v.overlap && v.mma_overlapped > 0) mma += " (no wait: not a pipeline)";
      rows.push_back({v.variant.empty() ? v.function : v.variant, v.arch, loop, mma,
                      v.unroll ? std::to_string(v.unroll) + "x" : "-", v.pass ? "PASS" : "FAIL", v.status()});
    }
    std::cout << table({"kernel", "arch", "main loop", "overlapped MMA", "unroll", "result", "verdict"}, rows);
    std::cout << verdicts.size() - failed << " of " << verdicts.size() << " as expected"
              << (failed ? ", " + std::to_string(failed) + " FAILED" : "") << "\n";
  }
  return failed ? kFail : kOk;
}

}  // namespace

void add_sass(CLI::App& app, int* rc) {
  auto* cmd = app.add_subcommand(
      "sass", "prove load/compute overlap from the machine code (cuobjdump; no GPU needed)");
  auto o = std::make_shared<SassOpts>();
  cmd->add_option("file", o->file,
                  "executable, object, library or cubin to check (default: this build's own kernels)");
  cmd->add_option("-k,--kernel", o->kernels, "registered variant(s) to check (default: all of ours)");
  cmd->add_option("--arch", o->archs, "sm_80 / 80 / 90a / all (default: every arch in the binary)")
      ->capture_default_str();
  cmd->add_option("--function", o->function, "only functions whose mangled name contains this");
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->add_flag("--brief", o->brief, "the summary table (and the details of any failure) only");
  cmd->callback([rc, o] { *rc = run_sass(*o); });
}

}  // namespace pipegemm::cli
