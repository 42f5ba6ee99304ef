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
  return p;
}

std::string Problem::shape_string() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

double Problem::bytes() const {
  return double(m) * k * dtype_bytes(a_type) + double(n) * k * dtype_bytes(b_type) +
         double(m) * n * dtype_bytes(d_type);
}

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
