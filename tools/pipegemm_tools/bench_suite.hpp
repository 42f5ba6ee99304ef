// `pipegemm bench` over many shapes: suite files (bench/suites/*.txt), shape ranges, the
// per-kernel summary against the best cuBLAS peer, and the environment a results file records.
// The parsing and the arithmetic are pure (tested on the CPU); bench_environment() asks the GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipegemm/pipegemm.hpp"
#include "pipegemm_tools/bench.hpp"

namespace pipegemm {

struct SuiteShape {
  int64_t m = 0, n = 0, k = 0;
  std::string dtype;  // the suite's dtype column; "" = --dtype applies
  int line = 0;       // 1-based line in the suite file (0 for ranges)
  // The line's semantics flags (`--bias col --act gelu_tanh`, the CLI's names), applied over the
  // command line's: one suite times the same GEMM with and without an epilogue in one run.
  std::vector<std::pair<std::string, std::string>> flags;
  std::string shape() const;  // "MxNxK"
};

// One shape per line, `MxNxK [dtype] [--flag value ...]` (flags: --layout --d-layout --alpha
// --beta --c --c-dtype --ldc --batch --broadcast --bias --bias-dtype --act); `#` starts a comment,
// blank lines are ignored. A bad line is refused with `where:LINE: ...`; a suite with no shape is
// refused.
Status parse_suite(std::string_view text, const std::string& where, std::vector<SuiteShape>* out);
Status load_suite(const std::string& path, std::vector<SuiteShape>* out);

// `MxNxK` where each dimension is N or start:stop:step (inclusive); several ranges make the cross
// product (M outermost, K innermost). A plain shape expands to itself.
Status expand_shape_ranges(std::string_view spec, std::vector<SuiteShape>* out);
bool is_shape_range(std::string_view spec);  // holds a ':'

// Per kernel (every non-peer result name, "auto" included, in first-seen order), over the shapes
// it ran with a cuBLAS peer: ratio = pct_of_peer / 100 against the faster peer of the run.
struct KernelSummary {
  std::string variant;
  int shapes = 0;           // ratios that went in (0: geomean and worst are meaningless)
  double geomean = 0;       // geometric mean of the ratios
  double worst = 0;         // the smallest ratio
  std::string worst_shape, worst_peer;
};
std::vector<KernelSummary> suite_summary(const std::vector<BenchReport>& runs);

// What the semantics cost (issue 13): each run with semantics -- layouts, alpha, beta C, batch, bias,
// activation (semantics_text) -- against the plain TN runs of the same shape, types and kernel in
// the same sweep: ratio = its time / the median of those plain times. A suite that repeats its
// lines in turn (bench/suites/epilogue_cost.txt) gives one ratio per repeat: their median, lowest
// and highest. Groups in first-seen order; none without a plain run to compare with.
struct SemanticsCost {
  std::string variant, shape, types, semantics;  // types: "A/D"
  int runs = 0;
  double median = 0, lowest = 0, highest = 0;
};
std::vector<SemanticsCost> semantics_costs(const std::vector<BenchReport>& runs);

// bench --kernel auto --candidates: per shape, ratio = the fastest variant timed beside auto (its
// own pick by name, cuBLAS included) / auto's time; 1.0 = auto took the fastest.
struct AutoSummary {
  int shapes = 0;
  double geomean = 0, worst = 0;
  std::string worst_shape, worst_fastest;  // where, and what was faster there
  int below_095 = 0;                       // shapes under 0.95
};
AutoSummary auto_summary(const std::vector<BenchReport>& runs);

// What a results file records once: the GPU, the software, the clock, the date.
struct BenchEnv {
  std::string gpu, driver, cuda_runtime, cublas, pipegemm, date;
  int sm_clock_mhz = 0;  // cudaDevAttrClockRate (the maximum SM clock), MHz
};
BenchEnv bench_environment();
std::string pipegemm_version();

// The command that made a report, as a shell line one can paste: the PIPEGEMM_* environment
// variables that were set (they steer auto: PIPEGEMM_TUNE_CACHE, PIPEGEMM_AUTO_ALSO, ...) as
// NAME=value prefixes in the given order, then argv. A word with anything but letters, digits and
// `_-+=.,:/@%^` is single-quoted ('it'\''s' for a quote); an empty word is ''.
std::string command_line(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env = {});

// The CLI's device: cudaSetDevice($PIPEGEMM_DEVICE) when it is set (the library itself always
// uses the caller's current device). Unset, or no GPU at all: nothing to do. invalid_argument
// for a value that is not an index of a present device.
Status use_device_from_env();

}  // namespace pipegemm
