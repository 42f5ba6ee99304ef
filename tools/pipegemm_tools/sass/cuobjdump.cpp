// cuobjdump output -> a Listing. Finding and running cuobjdump is pipegemm_tools/toolchain.hpp's.
#include <algorithm>
#include <thread>

#include "pipegemm_tools/sass.hpp"
#include "pipegemm_tools/toolchain.hpp"

namespace pipegemm::sass {

namespace {

// REG/STACK/SHARED/LOCAL onto the listing's functions of the same name and arch. A cubin's
// res-usage has no "arch =" line: then the name alone identifies the function.
void attach(const toolchain::ResUsageReport& res, Listing* l) {
  for (const toolchain::FunctionUsage& u : res.functions) {
    if (u.regs < 0) continue;  // a header without its REG line
    for (Function& f : l->functions)
      if (f.name == u.name && (u.arch.empty() || f.arch == u.arch)) f.res = {u.regs, u.stack, u.shared, u.local};
  }
}

}  // namespace

bool locate_cuobjdump(std::string* path, std::string* err) { return toolchain::locate_cuobjdump(path, err); }

bool cuobjdump_version(const std::string& exe, std::string* version, std::string* err) {
  return toolchain::cuobjdump_version(exe, version, err);
}

void parse_res_usage(std::string_view text, Listing* l) { attach(toolchain::parse_res_usage(text), l); }

bool load_listing(const std::string& cuobjdump, const std::string& file, Listing* out, std::string* err,
                  const std::function<bool(const std::string&, const std::string&)>& want) {
  // -res-usage first: it is fast and names every function per arch, so only the functions asked
  // for are disassembled (all of this build's kernels print ~35 MB of SASS).
  out->functions.clear();
  out->elf_archs.clear();
  toolchain::ResUsageReport res;
  if (!toolchain::res_usage(cuobjdump, file, &res, err)) return false;
  std::vector<std::pair<std::string, std::vector<std::string>>> by_arch;  // arch ("" = cubin) -> names
  for (const toolchain::FunctionUsage& f : res.functions) {
    if (!f.arch.empty() && std::find(out->elf_archs.begin(), out->elf_archs.end(), f.arch) == out->elf_archs.end())
      out->elf_archs.push_back(f.arch);
    if (want && !want(f.name, f.arch)) continue;
    auto it = std::find_if(by_arch.begin(), by_arch.end(), [&](const auto& p) { return p.first == f.arch; });
    if (it == by_arch.end()) by_arch.push_back({f.arch, {}}), it = by_arch.end() - 1;
    if (std::find(it->second.begin(), it->second.end(), f.name) == it->second.end()) it->second.push_back(f.name);
  }
  const bool named = !res.functions.empty();  // -res-usage named functions (wanted or not)
  if (named && by_arch.empty()) return true;  // none of its functions wanted: an empty listing
  if (!named) by_arch.push_back({"", {}});     // no resource usage to go by: disassemble everything
  if (named && want == nullptr) for (auto& p : by_arch) p.second.clear();  // all: no -fun list needed

  // One cuobjdump per arch, in parallel (each is single-threaded).
  std::vector<std::string> sass(by_arch.size()), errs(by_arch.size());
  std::vector<char> ok(by_arch.size(), 0);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < by_arch.size(); ++i) {
    pool.emplace_back([&, i] {
      std::vector<std::string> args = {"-sass"};
      if (!by_arch[i].second.empty()) {
        std::string list;
        for (const std::string& n : by_arch[i].second) list += (list.empty() ? "" : ",") + n;
        args.insert(args.end(), {"-fun", list});
      }
      if (!by_arch[i].first.empty()) args.insert(args.end(), {"-arch", by_arch[i].first});
      ok[i] = toolchain::run_cuobjdump(cuobjdump, args, file, &sass[i], &errs[i]);
    });
  }
  for (std::thread& t : pool) t.join();
  std::string all;
  for (size_t i = 0; i < by_arch.size(); ++i) {
    if (!ok[i]) {
      *err = errs[i];
      return false;
    }
    all += sass[i];
  }
  std::string perr;
  std::vector<std::string> elf_archs = out->elf_archs;  // parse_sass starts a fresh listing
  const bool parsed = parse_sass(all, out, &perr);
  out->elf_archs = elf_archs;
  if (!parsed) {
    if (named) return true;  // nothing of what was asked for: the caller says which kernel is missing
    // Device code but no SASS: PTX only (the driver would JIT it), or stripped of machine code.
    toolchain::RunResult ptx;
    std::string perr2;
    const bool has_ptx =
        toolchain::run(cuobjdump, {"-lptx", file}, &ptx, &perr2) && ptx.out.find(".ptx") != std::string::npos;
    *err = file + ": no SASS to check: " +
           (has_ptx ? "it holds PTX only (built with code=compute_XX); build real SASS (e.g. -arch=sm_80 / CMake CUDA_ARCHITECTURES 80;90a)"
                    : "the device code holds no functions with instructions (stripped?)");
    return false;
  }
  attach(res, out);
  return true;
}

}  // namespace pipegemm::sass
