// The pipegemm subcommands. Each parses its flags into a request (pipegemm_tools/reports.hpp,
// reports_plan_sass.hpp), calls the one builder that does the work and renders the report it
// returns: nothing here computes, formats a number or knows a JSON key.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "pipegemm_tools/reports_plan_sass.hpp"

namespace pipegemm::cli {

// Exit codes: 0 success, 1 verification or run failure, 2 usage / bad input, 3 no usable GPU.
enum Exit { kOk = 0, kFail = 1, kUsage = 2, kNoGpu = 3 };

void add_problem_options(CLI::App* app, ProblemRequest* o, const std::string& default_shape, bool with_npy);
void add_selection_options(CLI::App* app, Selection* s);

// Writes the document to stdout as JSON (--json) or text.
void emit(const report::Document& d, bool json);
// A builder's refusal: "pipegemm: error: ..." and 2 for bad input, the message and 3 without a
// GPU, the message and 1 for anything else.
int fail(const Status& s);
int fail_usage(const std::string& msg);

int run_verify(const VerifyRequest& r, bool json);
int run_bench(const BenchRequest& r, bool json);
int run_bench(const BenchRequest& r, bool json, const std::vector<std::string>& outputs);  // and --output FILE...

void add_list(CLI::App& app, int* rc);
void add_verify(CLI::App& app, int* rc);
void add_bench(CLI::App& app, int* rc);
void add_sass(CLI::App& app, int* rc);
void add_plan(CLI::App& app, int* rc);
void add_fuzz(CLI::App& app, int* rc);
void add_tune(CLI::App& app, int* rc);
void add_plot(CLI::App& app, int* rc);
void add_diagnose(CLI::App& app, int* rc);
void add_trace(CLI::App& app, int* rc);

// The command line as main() received it (diagnose hands its problem flags to the child it profiles).
void set_raw_args(int argc, char** argv);
const std::vector<std::string>& raw_args();
// `pipegemm` with no subcommand (cmd_default.cpp).
int cute_multistage_example(bool json);

}  // namespace pipegemm::cli
