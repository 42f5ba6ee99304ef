// `pipegemm sass`: the SASS proof of load/compute overlap (a later stage's load issued before the
// loop's MMAs, no barrier or wait on it between; docs/sass.md) for every registered kernel, or for
// the kernels of any executable, object or cubin -- no GPU needed.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "pipegemm_tools/sass.hpp"
#include "pipegemm_tools/toolchain.hpp"

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

int run_sass(const SassOpts& o) {
  sass::SassRequest req;
  Status s = sass::select_kernels(o.kernels, &req);
  if (!s.ok()) return fail(s);
  req.archs = o.archs;
  req.function = o.function;
  req.own = o.file.empty();
  req.file = o.file;
  req.brief = o.brief;

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
  if (own && !toolchain::self_exe(&file, &err)) return fail_usage(err + "; pass the executable as FILE");
  // Disassemble only what will be checked: our variants' functions, or the FILE's (--function).
  auto want = sass::wanted(req);
  sass::Listing listing;
  if (!sass::load_listing(tool, file, &listing, &err, want)) {
    std::cerr << "pipegemm: error: " << (own ? "this executable: " : "") << err << "\n";
    return kUsage;
  }

  req.tool = tool;
  req.version = version;
  sass::SassReport rep;
  if (!(s = sass::check_listing(req, listing, &rep)).ok()) return fail(s);
  emit(document(rep), o.json);
  return rep.failed ? kFail : kOk;
}

}  // namespace

void add_sass(CLI::App& app, int* rc) {
  auto* cmd = app.add_subcommand(
      "sass", "prove from the machine code that each kernel's loads overlap its MMAs: a later stage's load "
              "issues before the loop's MMAs with no barrier or wait on it between, and nothing spills "
              "(cuobjdump; no GPU needed)");
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
