// `pipegemm plot`: SVG charts from the reports bench, tune and suites write (CSV or JSON), so a
// stored result draws again with one command and no GPU:
//   ratio     each kernel's time against the best cuBLAS of the same run, shapes sorted, one
//             curve per kernel with its geomean and worst (and auto against the fastest
//             candidate when the run timed them: `bench --kernel auto --candidates`)
//   tflops    TFLOPS per shape (shapes in FLOP order), one line per kernel, cuBLAS dashed
//   roofline  TFLOPS against arithmetic intensity (FLOP per byte of A + B + D), log-log, under
//             the GPU's ceilings: DRAM bandwidth and the tensor rate of the types, from the arch
//             table of the GPU the report names (or --bandwidth / --peak)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::plot {

// One timed row of a report: a variant on a shape.
struct Row {
  std::string shape, variant, chose, a_type, d_type;
  int64_t m = 0, n = 0, k = 0;
  double ms = 0, tflops = 0, gbps = 0, pct_of_cublas = 0;
  double copy_gbps = 0;  // the device copy measured in the same run (sweep reports; 0 if absent)
  bool ok = false;
};

struct Results {
  std::vector<std::pair<std::string, std::string>> meta;  // "environment.gpu" -> "NVIDIA H200", ...
  std::vector<Row> rows;
  std::string meta_value(const std::string& key) const;    // "" when absent
};

// A report as `--output FILE.csv` or `FILE.json` (or --json) writes it; the format from the
// content. Refuses a file with no timed rows, with the reason.
Status read_results(const std::string& path, Results* out);
Status parse_results(const std::string& text, const std::string& name, Results* out);

enum class Kind { ratio, tflops, roofline };
Status parse_kind(const std::string& s, Kind* out);

struct Options {
  Kind kind = Kind::ratio;
  std::string title;            // default: the kind and the file's suite / GPU
  double bandwidth_gbps = 0;    // roofline: override the arch table's DRAM bandwidth
  double peak_tflops = 0;       // roofline: override the arch table's tensor rate
  std::vector<std::string> only;  // draw only the variants starting with one of these (peers stay
                                  // in tflops / roofline; auto / fastest still sees every row)
};

// The chart as a standalone SVG document; the numbers behind it (geomeans, ceilings) in `notes`.
Status render_svg(const Results& r, const Options& o, std::string* svg, std::vector<std::string>* notes = nullptr);

}  // namespace pipegemm::plot
