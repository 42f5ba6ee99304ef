// `pipegemm trace`: one traced launch of a variant (a build configured with -DPIPEGEMM_TRACE=ON)
// -> a Chrome/Perfetto trace (--out) and an SVG timeline (--svg), the summary on stdout.
#include <fstream>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "pipegemm_tools/trace.hpp"

namespace pipegemm::cli {

namespace {
bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  return bool(f << text);
}
}  // namespace

void add_trace(CLI::App& app, int* rc) {
  struct Args {
    trace::TraceRequest req;
    std::string out, svg;
    trace::SvgOptions svg_opt;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("trace", "one launch with the pipeline's stamps recorded (a traced build: "
                                          "-DPIPEGEMM_TRACE=ON): a Perfetto trace, an SVG timeline, overlap and bubbles");
  add_problem_options(cmd, &a->req.problem, "81920x256x256", false);
  cmd->add_option("-k,--kernel", a->req.kernel, "the variant (`pipegemm list`): the CuTe multistage kernel (seed_*), k4 and k5 are stamped")->required();
  cmd->add_option("-o,--out", a->out, "the Chrome/Perfetto trace JSON to write (ui.perfetto.dev)")->required();
  cmd->add_option("--svg", a->svg, "the SVG timeline to write (default: --out's name with .svg)");
  cmd->add_option("--sms", a->req.sms, "record on SMs 0 .. N-1")->capture_default_str();
  cmd->add_option("--seed", a->req.seed, "random seed of the inputs (default: fresh, printed)");
  cmd->add_option("--svg-sm", a->svg_opt.sm, "the SM the SVG draws (default: the lowest recorded)");
  cmd->add_option("--svg-ctas", a->svg_opt.max_ctas, "CTAs of that SM the SVG draws, in start order")->capture_default_str();
  cmd->add_flag("--svg-all-warps", a->svg_opt.all_warps, "draw every warp of a CTA (default: warp 0; warps run in lockstep)");
  cmd->add_flag("--json", a->json, "the summary as JSON");
  cmd->callback([a, rc] {
    trace::TraceReport rep;
    // A normal build refuses here, before any file is written.
    Status s = trace::run_trace(a->req, &rep);
    if (!s.ok()) {
      *rc = fail(s);
      return;
    }
    std::string svg = a->svg;
    if (svg.empty()) {  // k4.json -> k4.svg
      const bool json_name = a->out.size() > 5 && a->out.compare(a->out.size() - 5, 5, ".json") == 0;
      svg = (json_name ? a->out.substr(0, a->out.size() - 5) : a->out) + ".svg";
    }
    if (!write_file(a->out, trace::chrome_json(rep.meta, rep.timeline, rep.summary)) ||
        !write_file(svg, trace::timeline_svg(rep.meta, rep.timeline, rep.summary, a->svg_opt))) {
      *rc = fail_usage(a->out + " or " + svg + ": cannot be written");
      return;
    }
    emit(trace::document(rep), a->json);
    if (!a->json) std::cout << "wrote " << a->out << " (open in ui.perfetto.dev) and " << svg << "\n";
    *rc = rep.verify.status.ok() ? kOk : kFail;
  });
}

}  // namespace pipegemm::cli
