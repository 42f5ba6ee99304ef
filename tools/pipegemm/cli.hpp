// Shared pieces of the pipegemm subcommands: problem options, variant selection, tables.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "pipegemm/bench.hpp"
#include "pipegemm/registry.hpp"

namespace pipegemm::cli {

// Exit codes: 0 success, 1 verification or run failure, 2 usage / bad input, 3 no usable GPU.
enum Exit { kOk = 0, kFail = 1, kUsage = 2, kNoGpu = 3 };

struct ProblemOpts {
  std::string shape;
  std::string dtype, acc, out_dtype;
  int64_t lda = 0, ldb = 0, ldd = 0;
  std::string a_npy, b_npy, d_npy;
};
void add_problem_options(CLI::App* app, ProblemOpts* o, const std::string& default_shape, bool with_npy);

struct Selection {
  std::vector<std::string> kernels;  // names, "all", "auto"
  std::string family;
  bool peers = true;                 // include the matching cuBLAS entries
};
void add_selection_options(CLI::App* app, Selection* s);

// The input, accumulation and output types asked for by --dtype / --acc / --out-dtype, with the
// defaults for what is left out (f16 in; i32 acc and out for i8, else f32 acc and out = in).
bool requested_types(const ProblemOpts& o, DType* in, DType* acc, DType* out, std::string* err);
// Variants chosen by --kernel / --family / --dtype, in registry order. Error text on failure.
bool select_variants(const Selection& s, const ProblemOpts& o, std::vector<const Variant*>* out,
                     std::string* err);
// The problem for variant v: shape and leading dimensions from the options, types from v.
bool problem_for(const ProblemOpts& o, const Variant& v, Problem* p, std::string* err);

// Fixed-width text table.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
std::string fmt(double v, int prec);

int fail_usage(const std::string& msg);   // prints "pipegemm: error: msg" and returns kUsage
int no_gpu(const std::string& what);       // prints why, returns kNoGpu

struct VerifyOpts {
  ProblemOpts prob;
  Selection sel;
  uint64_t seed = 0;
  bool json = false;
};
struct BenchOpts {
  ProblemOpts prob;
  Selection sel;
  BenchOptions run;
  bool json = false;
};
int run_verify(VerifyOpts& o);
int run_bench(BenchOpts& o);

void add_list(CLI::App& app, int* rc);
void add_verify(CLI::App& app, int* rc);
void add_bench(CLI::App& app, int* rc);
void add_sass(CLI::App& app, int* rc);
void add_plan(CLI::App& app, int* rc);
int seed_experiment(bool json);

}  // namespace pipegemm::cli
