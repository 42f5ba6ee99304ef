// `pipegemm plot`: an SVG chart from a stored bench / tune / suite report (no GPU).
#include <fstream>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "pipegemm_tools/plot.hpp"

namespace pipegemm::cli {

void add_plot(CLI::App& app, int* rc) {
  struct Args {
    std::string input, output, kind = "ratio";
    plot::Options opt;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("plot", "draw a report (bench/tune/suite --output FILE.csv or .json) as an SVG chart: "
                                         "ratio (against best cuBLAS), tflops (per shape), roofline");
  cmd->add_option("report", a->input, "the report file (.csv or .json)")->required();
  cmd->add_option("--kind", a->kind, "ratio, tflops or roofline")->capture_default_str();
  cmd->add_option("-o,--out", a->output, "the SVG file to write")->required();
  cmd->add_option("--title", a->opt.title, "the chart's title (default: the kind, the suite and the GPU)");
  cmd->add_option("--bandwidth", a->opt.bandwidth_gbps, "roofline: bandwidth ceiling in GB/s (default: the device copy the report measured, else the arch table's DRAM)");
  cmd->add_option("--peak", a->opt.peak_tflops, "roofline: compute ceiling in TFLOPS (default: the arch table's)");
  cmd->add_option("--only", a->opt.only, "draw only variants starting with these (e.g. auto k5); peers stay");
  cmd->callback([a, rc] {
    plot::Results r;
    std::string svg;
    std::vector<std::string> notes;
    Status s = plot::parse_kind(a->kind, &a->opt.kind);
    if (s.ok()) s = plot::read_results(a->input, &r);
    if (s.ok()) s = plot::render_svg(r, a->opt, &svg, &notes);
    if (!s.ok()) {
      *rc = s.code == StatusCode::io_error ? fail_usage(s.message) : fail(s);
      return;
    }
    std::ofstream f(a->output, std::ios::binary);
    if (!(f << svg)) {
      *rc = fail_usage(a->output + ": cannot be written");
      return;
    }
    std::cout << "wrote " << a->output << " (" << a->kind << ", " << r.rows.size() << " rows of " << a->input << ")\n";
    for (const std::string& n : notes) std::cout << "  " << n << "\n";
  });
}

}  // namespace pipegemm::cli
