// `pipegemm sass`: which functions of a listing are which registered kernels, each one's verdict,
// and the report laid out (the listing itself comes from load_listing).
#include <algorithm>
#include <cstdio>

#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::sass {

namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

std::string norm_arch(std::string a) { return a.rfind("sm_", 0) == 0 ? a : "sm_" + a; }

std::string hex(int64_t a) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%04llx", static_cast<long long>(a));
  return b;
}

bool all_archs(const SassRequest& r) { return std::find(r.archs.begin(), r.archs.end(), "all") != r.archs.end(); }
bool function_ok(const SassRequest& r, const std::string& name) {
  return r.function.empty() || name.find(r.function) != std::string::npos;
}

// The variant's expectations, or the unmatched function's that no kernel of ours is there.
Verdict missing(const Variant& v, const KernelInstance& k, const std::string& arch) {
  Verdict vd;
  vd.variant = v.name;
  vd.form = k.form;
  vd.function = "(symbol " + k.symbol + ")";
  vd.arch = arch;
  vd.expect = expect_for(v);
  vd.checks.push_back({"present", false, "no function matching '" + k.symbol + "' in the " + arch + " code"});
  return vd;
}

// Is `name` one of v's kernels?
bool of_variant(const std::string& name, const Variant& v) {
  return std::any_of(v.kernels.begin(), v.kernels.end(),
                     [&](const KernelInstance& k) { return symbol_matches(name, k.symbol); });
}

}  // namespace

Status select_kernels(const std::vector<std::string>& names, SassRequest* r) {
  for (const std::string& k : names) {
    if (k == "all") continue;
    const Variant* v = find_variant(k);
    if (!v) return bad("unknown kernel '" + k + "' (see `pipegemm list`)");
    if (v->symbol.empty()) return bad("'" + k + "' has no machine code of ours to check (a " + v->family + " peer)");
    r->kernels.push_back(v);
  }
  return {};
}

std::vector<const Variant*> kernels_to_check(const SassRequest& r) {
  if (!r.kernels.empty()) return r.kernels;
  std::vector<const Variant*> all;
  for (const Variant& v : variants())
    if (!v.symbol.empty()) all.push_back(&v);
  return all;
}

std::function<bool(const std::string&, const std::string&)> wanted(const SassRequest& r) {
  return [r, chosen = kernels_to_check(r)](const std::string& name, const std::string& arch) {
    if (!function_ok(r, name)) return false;
    if (!arch.empty() && !all_archs(r) &&
        std::none_of(r.archs.begin(), r.archs.end(), [&](const std::string& a) { return norm_arch(a) == arch; }))
      return false;
    if (!r.own && r.kernels.empty()) return true;  // a FILE: every function (of the asked archs)
    return std::any_of(chosen.begin(), chosen.end(), [&](const Variant* v) { return of_variant(name, *v); });
  };
}

Status check_listing(const SassRequest& r, const Listing& l, SassReport* out) {
  SassReport rep;
  rep.file = r.own ? "(this executable)" : r.file;
  rep.tool = r.tool;
  rep.version = r.version;
  rep.own = r.own;
  rep.brief = r.brief;
  const std::string where = r.own ? std::string("this build") : r.file;
  const std::vector<std::string> present = l.archs();
  std::vector<std::string> archs;
  for (const std::string& a : r.archs) {
    if (a == "all") {
      archs = present;
      break;
    }
    const std::string n = norm_arch(a);
    if (std::find(present.begin(), present.end(), n) == present.end()) {
      std::string have;
      for (const std::string& p : present) have += (have.empty() ? "" : ", ") + p;
      return bad(where + " has no " + n + " code (it has " + have + ")");
    }
    archs.push_back(n);
  }
  const std::vector<const Variant*> chosen = kernels_to_check(r);
  const bool named = !r.kernels.empty();
  for (const std::string& arch : archs) {
    const int sm = sm_of(arch);
    std::vector<bool> claimed(l.functions.size(), false);
    for (const Variant* v : chosen) {
      // Every kernel the variant launches, each by its own symbol, held to the variant's expectations
      // (its forms share the tile, the warpgroups and the MMA shape).
      const bool applies = sm >= v->min_sm && (v->max_sm == 0 || sm <= v->max_sm);
      const Expect e = expect_for(*v);
      for (const KernelInstance& k : v->kernels) {
        bool found = false;
        for (size_t i = 0; i < l.functions.size(); ++i) {
          const Function& f = l.functions[i];
          if (f.arch != arch || !symbol_matches(f.name, k.symbol) || !function_ok(r, f.name)) continue;
          found = claimed[i] = true;
          Verdict vd = check_function(f, e);
          vd.variant = v->name;
          vd.form = k.form;
          rep.verdicts.push_back(std::move(vd));
        }
        // Our own build must hold every registered kernel for every arch it was built for.
        if (!found && applies && (r.own || named) && r.function.empty()) rep.verdicts.push_back(missing(*v, k, arch));
      }
    }
    if (r.own || named) continue;
    // Any other kernel of the given file: the generic expectation (overlap, count unchecked).
    const Expect e = generic_expect();
    for (size_t i = 0; i < l.functions.size(); ++i) {
      const Function& f = l.functions[i];
      if (claimed[i] || f.arch != arch || !function_ok(r, f.name)) continue;
      const bool has_mma = std::any_of(f.code.begin(), f.code.end(), [&](const Instr& in) {
        return std::find(e.mma_ops.begin(), e.mma_ops.end(), in.opcode) != e.mma_ops.end();
      });
      if (has_mma) rep.verdicts.push_back(check_function(f, e));
      else rep.notes.push_back(f.name + " [" + arch + "]: no tensor-core MMA, not checked");
    }
  }
  if (rep.verdicts.empty())
    return bad("no kernel" + (r.function.empty() ? "" : " matching '" + r.function + "'") + " to check in " + where +
               (r.own ? "" : " (no registered kernel and no function with HMMA/IMMA/HGMMA/IGMMA)"));
  for (const Verdict& v : rep.verdicts) rep.failed += !v.pass;
  *out = std::move(rep);
  return {};
}

report::Document document(const SassReport& r) {
  using report::Cell;
  using report::Show;
  using report::Value;
  report::Document d;
  if (!r.brief)
    d.title = "SASS overlap proof of " + (r.own ? std::string("this build's kernels") : r.file) +
              ", cuobjdump " + r.version + " (" + r.tool + ")\n"
              "rule: a next-stage load issues before an MMA of the loop with no BAR.SYNC or wait on it between, a wait "
              "gates the next iteration, MMA count per k_tile unchanged, no spills (docs/sass.md)";
  const int n = int(r.verdicts.size());
  report::Section& details = d.section();  // every proof in full; brief: what failed only
  Value notes = Value::array();
  for (const Verdict& v : r.verdicts)
    if (!r.brief || !v.pass) details.note(format_verdict(v));
  for (const std::string& x : r.notes) {
    if (!r.brief) details.note("note: " + x);
    notes.push(x);
  }
  report::Section& s = d.section("", false);
  s.data("file", r.file).data("cuobjdump", r.tool).data("cuobjdump_version", r.version);
  s.data("passed", n - r.failed).data("failed", r.failed).data("notes", notes);
  report::Table& t = s.table(
      "verdicts", "",
      {{"", "kernel", Show::text}, {"arch", "arch"}, {"loop", "main loop"}, {"", "overlapped MMA", Show::text},
       {"unroll", "unroll"}, {"pass", "result"}, {"status", "verdict"}, {"variant", "", Show::data},
       {"form", "", Show::data},
       {"function", "", Show::data}, {"overlap", "", Show::data}, {"expect_overlap", "", Show::data},
       {"mma_in_loop", "", Show::data}, {"mma_overlapped", "", Show::data}, {"mma_in_flight", "", Show::data},
       {"mma_per_k_tile", "", Show::data}, {"loads_in_loop", "", Show::data}, {"load", "", Show::data},
       {"mma", "", Show::data}, {"gate", "", Show::data}, {"blocker", "", Show::data}, {"checks", "", Show::data}});
  auto cite = [](const Cite& c) {
    return c.addr < 0 ? Value(nullptr) : Value::object({{"addr", hex(c.addr)}, {"instr", c.text}});
  };
  for (const Verdict& v : r.verdicts) {
    Value checks = Value::array();
    for (const Check& c : v.checks) checks.push(Value::object({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}}));
    const Value loop = v.loop_found ? Value::object({{"begin", hex(v.loop_begin)}, {"end", hex(v.loop_end)}}) : Value(nullptr);
    std::string mma = v.loop_found ? std::to_string(v.mma_overlapped) + "/" + std::to_string(v.mma_in_loop) : "-";
    if (v.loop_found && !v.overlap && v.mma_overlapped > 0) mma += " (no wait: not a pipeline)";
    t.add({report::text_cell(v.kernel()), v.arch,
           Cell(loop, v.loop_found ? hex(v.loop_begin) + ".." + hex(v.loop_end) : "-"), report::text_cell(mma),
           Cell(v.unroll, v.unroll ? std::to_string(v.unroll) + "x" : "-"), Cell(v.pass, v.pass ? "PASS" : "FAIL"),
           v.status(), v.variant.empty() ? Value(nullptr) : Value(v.variant),
           v.form.empty() ? Value(nullptr) : Value(v.form), v.function, v.overlap,
           v.expect.expect_overlap, v.mma_in_loop, v.mma_overlapped, v.mma_in_flight, v.expect.mma_per_k_tile,
           v.loads_in_loop, cite(v.load), cite(v.mma), cite(v.gate), cite(v.blocker), checks});
  }
  s.note(std::to_string(n - r.failed) + " of " + std::to_string(n) + " as expected" +
         (r.failed ? ", " + std::to_string(r.failed) + " FAILED" : ""));
  return d;
}

}  // namespace pipegemm::sass
