// The fuzzer's reproducer lines: a problem as the `pipegemm verify` command that runs it again
// (fuzz.hpp), and that line parsed back.
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "pipegemm_tools/fuzz/detail.hpp"

namespace pipegemm::fuzz {
namespace {

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

template <class T>
bool parse_int(std::string_view s, T* v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

std::string reproducer(const Problem& in, int64_t offset, const std::string& kernel, uint64_t seed, bool c_in_place) {
  const Problem p = in.normalized();
  std::ostringstream s;
  s << "pipegemm verify --shape " << p.shape_string() << " --lda " << p.lda << " --ldb " << p.ldb << " --ldd "
    << p.ldd << " --dtype " << to_string(p.a_type) << " --acc " << to_string(p.acc_type) << " --out-dtype "
    << to_string(p.d_type);
  auto num = [](float v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", double(v));
    return std::string(b);
  };
  const bool in_place = c_in_place && p.reads_c();
  if (p.a_layout != Layout::RowMajor || p.b_layout != Layout::RowMajor) s << " --layout " << layout_name(p.a_layout, p.b_layout);
  if (p.d_layout != Layout::RowMajor) s << " --d-layout col";
  if (p.alpha != 1.f) s << " --alpha " << num(p.alpha);
  if (p.reads_c()) {
    s << " --beta " << num(p.beta);
    if (in_place) s << " --c d";
    else {
      if (*p.c_type != p.d_type) s << " --c-dtype " << to_string(*p.c_type);
      s << " --ldc " << p.ldc;
    }
  }
  if (p.batch != 1) {
    s << " --batch " << p.batch;
    if (p.stride_a == 0) s << " --broadcast a";
    else if (p.stride_b == 0) s << " --broadcast b";
    else if (p.reads_c() && p.stride_c == 0) s << " --broadcast c";
  }
  if (p.bias != Bias::none) {
    s << " --bias " << to_string(p.bias);
    if (*p.bias_type != p.d_type) s << " --bias-dtype " << to_string(*p.bias_type);
  }
  if (p.activation != Activation::none) s << " --act " << to_string(p.activation);
  s << " --kernel " << kernel << " --seed " << seed;
  if (offset) s << " --offset " << offset;
  return s.str();
}

Status parse_reproducer(std::string_view line, Problem* p, int64_t* offset, std::string* kernel, uint64_t* seed,
                        bool* c_in_place) {
  std::vector<std::string> t;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) t.push_back(w);
  if (t.size() < 2 || t[0] != "pipegemm" || t[1] != "verify") return bad("not a `pipegemm verify` line");
  Problem q;
  int64_t off = 0;
  uint64_t sd = 0;
  std::string name, c_bind = "apart", broadcast;
  auto parse_float = [](const std::string& v, float* out) {
    char* end = nullptr;
    *out = std::strtof(v.c_str(), &end);
    return !v.empty() && end == v.c_str() + v.size();
  };
  for (size_t i = 2; i < t.size(); i += 2) {
    if (i + 1 >= t.size()) return bad(t[i] + " without a value");
    const std::string& f = t[i];
    const std::string& v = t[i + 1];
    bool ok = true;
    DType dt = DType::f16;
    if (f == "--shape") ok = parse_shape(v, &q.m, &q.n, &q.k);
    else if (f == "--lda") ok = parse_int(v, &q.lda);
    else if (f == "--ldb") ok = parse_int(v, &q.ldb);
    else if (f == "--ldd") ok = parse_int(v, &q.ldd);
    else if (f == "--dtype") ok = parse_dtype(v, &q.a_type), q.b_type = q.a_type;
    else if (f == "--acc") ok = parse_dtype(v, &q.acc_type);
    else if (f == "--out-dtype") ok = parse_dtype(v, &q.d_type);
    else if (f == "--layout") ok = parse_layout_name(v, &q.a_layout, &q.b_layout);
    else if (f == "--d-layout") ok = v == "row" || v == "col", q.d_layout = v == "col" ? Layout::ColMajor : Layout::RowMajor;
    else if (f == "--alpha") ok = parse_float(v, &q.alpha);
    else if (f == "--beta") ok = parse_float(v, &q.beta);
    else if (f == "--c") ok = v == "apart" || v == "d", c_bind = v;
    else if (f == "--c-dtype") ok = v == "d" || parse_dtype(v, &dt), q.c_type = v == "d" ? std::nullopt : std::optional<DType>(dt);
    else if (f == "--ldc") ok = parse_int(v, &q.ldc);
    else if (f == "--batch") ok = parse_int(v, &q.batch) && q.batch >= 1;
    else if (f == "--broadcast") ok = v == "a" || v == "b" || v == "c", broadcast = v;
    else if (f == "--bias") ok = parse_bias(v, &q.bias);
    else if (f == "--bias-dtype") ok = v == "d" || parse_dtype(v, &dt), q.bias_type = v == "d" ? std::nullopt : std::optional<DType>(dt);
    else if (f == "--act") ok = parse_activation(v, &q.activation);
    else if (f == "--kernel") name = v;
    else if (f == "--seed") ok = parse_int(v, &sd);
    else if (f == "--offset") ok = parse_int(v, &off) && off >= 0;
    else return bad("unknown flag " + f);
    if (!ok) return bad("bad value '" + v + "' for " + f);
  }
  if (broadcast == "a") q.stride_a = 0;
  if (broadcast == "b") q.stride_b = 0;
  if (broadcast == "c") q.stride_c = 0;
  const bool in_place = c_bind == "d" && q.reads_c();
  if (in_place) {  // C = D: D's leading dimension, type and stride
    q.ldc = q.ldd;
    q.c_type.reset();
    q.stride_c = q.stride_d;
  }
  *p = q.normalized();
  *offset = off;
  *kernel = name;
  *seed = sd;
  if (c_in_place) *c_in_place = in_place;
  return Status::success();
}

}  // namespace pipegemm::fuzz
