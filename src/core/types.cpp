#include <cctype>
#include <charconv>
#include <string>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

const char* to_string(DType t) {
  switch (t) {
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
    case DType::i8: return "i8";
    case DType::i32: return "i32";
  }
  return "?";
}

const char* to_string(Layout l) { return l == Layout::RowMajor ? "row" : "col"; }

const char* to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::gelu_erf: return "gelu_erf";
  }
  return "?";
}

const char* to_string(Bias b) {
  switch (b) {
    case Bias::none: return "none";
    case Bias::per_row: return "row";
    case Bias::per_col: return "col";
  }
  return "?";
}

bool parse_activation(std::string_view s, Activation* out) {
  struct { const char* name; Activation a; } table[] = {{"none", Activation::none}, {"relu", Activation::relu},
                                                        {"gelu_tanh", Activation::gelu_tanh}, {"gelu", Activation::gelu_tanh},
                                                        {"gelu_erf", Activation::gelu_erf}};
  for (auto& e : table)
    if (s == e.name) { *out = e.a; return true; }
  return false;
}

bool parse_bias(std::string_view s, Bias* out) {
  struct { const char* name; Bias b; } table[] = {{"none", Bias::none}, {"row", Bias::per_row}, {"per_row", Bias::per_row},
                                                  {"col", Bias::per_col}, {"per_col", Bias::per_col}};
  for (auto& e : table)
    if (s == e.name) { *out = e.b; return true; }
  return false;
}

// BLAS's column-major letters: op(A) = T when A (M,K) is K-major; op(B) = N when B (N,K) is K-major.
const char* layout_name(Layout a, Layout b) {
  const bool ta = a == Layout::RowMajor, nb = b == Layout::RowMajor;
  return ta ? (nb ? "TN" : "TT") : (nb ? "NN" : "NT");
}

bool parse_layout_name(std::string_view s, Layout* a, Layout* b) {
  for (Layout x : {Layout::RowMajor, Layout::ColMajor})
    for (Layout y : {Layout::RowMajor, Layout::ColMajor})
      if (s == layout_name(x, y) || (s.size() == 2 && std::tolower(s[0]) == std::tolower(layout_name(x, y)[0]) &&
                                     std::tolower(s[1]) == std::tolower(layout_name(x, y)[1]))) {
        *a = x;
        *b = y;
        return true;
      }
  return false;
}

int64_t matrix_span(int64_t rows, int64_t cols, int64_t ld, Layout l) {
  return l == Layout::RowMajor ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

MatrixView view_a(const Problem& p) { return {p.m, p.k, p.lda, p.stride_a, p.a_layout}; }
MatrixView view_b(const Problem& p) { return {p.n, p.k, p.ldb, p.stride_b, p.b_layout}; }
MatrixView view_c(const Problem& p) { return {p.m, p.n, p.ldc, p.stride_c, p.d_layout}; }
MatrixView view_d(const Problem& p) { return {p.m, p.n, p.ldd, p.stride_d, p.d_layout}; }

bool parse_dtype(std::string_view s, DType* out) {
  struct { const char* name; DType t; } table[] = {
      {"f16", DType::f16}, {"fp16", DType::f16}, {"half", DType::f16},
      {"bf16", DType::bf16}, {"f32", DType::f32}, {"fp32", DType::f32}, {"float", DType::f32},
      {"i8", DType::i8}, {"int8", DType::i8}, {"i32", DType::i32}, {"int32", DType::i32}};
  for (auto& e : table)
    if (s == e.name) { *out = e.t; return true; }
  return false;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::f16: case DType::bf16: return 2;
    case DType::f32: case DType::i32: return 4;
    case DType::i8: return 1;
  }
  return 0;
}

Problem Problem::normalized() const {
  Problem p = *this;
  if (p.lda == 0) p.lda = a_layout == Layout::RowMajor ? k : m;
  if (p.ldb == 0) p.ldb = b_layout == Layout::RowMajor ? k : n;
  if (p.ldd == 0) p.ldd = d_layout == Layout::RowMajor ? n : m;
  if (p.ldc == 0) p.ldc = d_layout == Layout::RowMajor ? n : m;
  if (!p.c_type) p.c_type = d_type;
  if (!p.bias_type) p.bias_type = d_type;
  // Packed: one whole matrix (its rows times its leading dimension) after another.
  // INT64_MAX where it does not fit: validate_problem refuses a batch of such matrices.
  auto packed = [](int64_t rows, int64_t cols, int64_t ld, Layout l) {
    int64_t s;
    return __builtin_mul_overflow(l == Layout::RowMajor ? rows : cols, ld, &s) ? INT64_MAX : s;
  };
  if (p.stride_a == -1) p.stride_a = packed(m, k, p.lda, a_layout);
  if (p.stride_b == -1) p.stride_b = packed(n, k, p.ldb, b_layout);
  if (p.stride_c == -1) p.stride_c = packed(m, n, p.ldc, d_layout);
  if (p.stride_d == -1) p.stride_d = packed(m, n, p.ldd, d_layout);
  return p;
}

std::string Problem::shape_string() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

double Problem::bytes() const {
  // A broadcast operand (stride 0) is read once for the whole batch.
  const double nb = double(batch);
  const double na = stride_a == 0 ? 1 : nb, nbb = stride_b == 0 ? 1 : nb, nc = stride_c == 0 ? 1 : nb;
  double bytes = na * double(m) * k * dtype_bytes(a_type) + nbb * double(n) * k * dtype_bytes(b_type) +
                 nb * double(m) * n * dtype_bytes(d_type);
  if (reads_c()) bytes += nc * double(m) * n * dtype_bytes(c_type.value_or(d_type));
  return bytes;
}

const char* library_version() { return PIPEGEMM_VERSION; }

bool parse_shape(std::string_view s, int64_t* m, int64_t* n, int64_t* k) {
  int64_t v[3];
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    if (pos >= s.size()) return false;
    const char* b = s.data() + pos;
    const char* e = s.data() + s.size();
    auto r = std::from_chars(b, e, v[i]);
    if (r.ec != std::errc() || r.ptr == b) return false;
    pos = size_t(r.ptr - s.data());
    if (i < 2) {
      if (pos >= s.size() || (s[pos] != 'x' && s[pos] != 'X' && s[pos] != ',')) return false;
      ++pos;
    }
  }
  if (pos != s.size()) return false;
  *m = v[0]; *n = v[1]; *k = v[2];
  return true;
}

}  // namespace pipegemm
