// The options every problem-taking subcommand shares, and the one way out: render or refuse.
#include <iostream>

#include "cli.hpp"

namespace pipegemm::cli {

void add_problem_options(CLI::App* app, ProblemRequest* o, const std::string& default_shape, bool with_npy) {
  o->shape = default_shape;
  app->add_option("-s,--shape", o->shape, "problem size MxNxK (D = A(M,K) * B(N,K)^T)")->capture_default_str();
  app->add_option("--dtype", o->types.in, "only variants with this input type: f16, bf16, i8, f32");
  app->add_option("--acc", o->types.acc, "only variants with this accumulation type: f16, f32, i32");
  app->add_option("--out-dtype", o->types.out, "only variants with this output type");
  app->add_option("--lda", o->lda, "leading dimension of A in elements (default K)");
  app->add_option("--ldb", o->ldb, "leading dimension of B in elements (default K)");
  app->add_option("--ldd", o->ldd, "leading dimension of D in elements (default N; M for --d-layout col)");
  // The semantics: D = act(alpha * A B^T + beta * C + bias), for each of --batch products.
  app->add_option("--layout", o->layout, "A and B layouts, BLAS's op letters: TN (both K-major), NN, NT, TT")
      ->capture_default_str();
  app->add_option("--d-layout", o->d_layout, "D (and C) row- or column-major: row, col")->capture_default_str();
  app->add_option("--alpha", o->alpha, "D = alpha * A B^T + ...")->capture_default_str();
  app->add_option("--beta", o->beta, "... + beta * C (0: C is not read)")->capture_default_str();
  app->add_option("--c", o->c, "C apart (its own buffer) or d (C = D, in place: D's values are C)")->capture_default_str();
  app->add_option("--c-dtype", o->c_dtype, "C's type: d (D's, the default) or f32");
  app->add_option("--ldc", o->ldc, "leading dimension of C in elements (default: packed; C = D: ldd)");
  app->add_option("--batch", o->batch, "products, strided one after another")->capture_default_str();
  app->add_option("--broadcast", o->broadcast, "a, b or c: that operand is the same for every product (stride 0)");
  app->add_option("--bias", o->bias, "add a bias vector per row (M values) or per column (N): none, row, col")
      ->capture_default_str();
  app->add_option("--bias-dtype", o->bias_dtype, "the bias's type: d (D's) or f32")->capture_default_str();
  app->add_option("--act", o->act, "activation, last: none, relu, gelu_tanh, gelu_erf")->capture_default_str();
  if (with_npy) {
    app->add_option("--a", o->a_npy, "A (M,K) from a .npy file (C order)");
    app->add_option("--b", o->b_npy, "B (N,K) from a .npy file (C order)");
    app->add_option("--out", o->d_npy, "write D (M,N) of the (single) selected variant to a .npy file");
    app->add_option("--offset", o->offset, "start A, B, C, the bias and D this many elements past an aligned allocation "
                                           "(random inputs; `pipegemm fuzz` reproducers use it)")
        ->check(CLI::Range(int64_t(0), int64_t(64)));
  }
}

void add_selection_options(CLI::App* app, Selection* s) {
  app->add_option("-k,--kernel", s->kernels, "variant name(s) from `pipegemm list`, or 'all' / 'auto'");
  app->add_option("--family", s->family, "only this family (e.g. k4_multistage, cublas)");
  app->add_flag("!--no-peers", s->peers, "leave out the matching cuBLAS entries");
}

void emit(const report::Document& d, bool json) {
  std::cout << report::render(d, json ? report::Format::json : report::Format::text) << std::flush;
}

int fail(const Status& s) {
  switch (s.code) {
    case StatusCode::ok: return kOk;
    case StatusCode::invalid_argument:
    case StatusCode::not_supported: return fail_usage(s.message);
    case StatusCode::no_device: std::cerr << s.message << "\n"; return kNoGpu;
    default: std::cerr << s.message << "\n"; return kFail;
  }
}

int fail_usage(const std::string& msg) {
  std::cerr << "pipegemm: error: " << msg << "\n";
  return kUsage;
}

namespace {
std::vector<std::string>& raw_args_storage() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

void set_raw_args(int argc, char** argv) { raw_args_storage().assign(argv, argv + argc); }
const std::vector<std::string>& raw_args() { return raw_args_storage(); }

}  // namespace pipegemm::cli
