// The fuzzer's problem generator, its reproducer lines (the rules are in fuzz.hpp), and what
// runs for an input type: its type combinations and its large problems' cuBLAS reference.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "pipegemm_tools/fuzz/detail.hpp"

namespace pipegemm::fuzz {
namespace {

// splitmix64: the sequence is ours, not a standard library's distribution, so a seed names
// the same problems on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  bool coin() { return next() >> 63; }
  int64_t log_uniform(int64_t max) {
    const auto v = int64_t(std::floor(std::exp(unit() * std::log(double(max) + 1.0))));
    return std::clamp<int64_t>(v, 1, max);
  }
  int64_t odd_pad() { return 1 + 2 * int64_t(next() % 16); }  // 1, 3, ..., 31
};

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

template <class T>
bool parse_int(std::string_view s, T* v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

bool FuzzCase::operator==(const FuzzCase& o) const {
  return index == o.index && in == o.in && m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb &&
         ldd == o.ldd && offset == o.offset;
}

int64_t offset_for(DType in) {
  switch (in) {
    case DType::i8: return 4;  // 4 bytes: what k0 (widest element: int32 D) and cuBLAS IMMA need
    case DType::f16: case DType::bf16: case DType::f32: return 1;
    case DType::i32: return 0;  // an output type, never an input
  }
  return 0;
}

std::vector<FuzzCase> generate_cases(DType in, uint64_t seed, int count, int64_t max_dim) {
  Rng rng{seed ^ (0xd1b54a32d192ed03ull * (uint64_t(in) + 1))};
  const int64_t vec = 16 / dtype_bytes(in);
  std::vector<FuzzCase> out;
  out.reserve(size_t(std::max(count, 0)));
  for (int i = 0; i < count; ++i) {
    FuzzCase c;
    c.index = i;
    c.in = in;
    c.m = rng.log_uniform(max_dim);
    c.n = rng.log_uniform(max_dim);
    c.k = rng.log_uniform(max_dim);
    // Every draw is taken whether used or not: case i does not depend on earlier coin flips.
    const bool odd_k = rng.coin();
    const bool pad[3] = {rng.coin(), rng.coin(), rng.coin()};
    const int64_t pads[3] = {rng.odd_pad(), rng.odd_pad(), rng.odd_pad()};
    const bool shifted = rng.coin();
    if (odd_k) {
      c.k |= 1;
      if (c.k > max_dim) c.k -= 2;
    } else {
      c.k = (c.k + vec - 1) / vec * vec;
      if (c.k > max_dim) c.k = max_dim / vec * vec;
    }
    c.lda = c.k + (pad[0] ? pads[0] : 0);
    c.ldb = c.k + (pad[1] ? pads[1] : 0);
    c.ldd = c.n + (pad[2] ? pads[2] : 0);
    c.offset = shifted ? offset_for(in) : 0;
    out.push_back(c);
  }
  return out;
}

Problem problem_of(const FuzzCase& c, DType acc, DType out) {
  Problem p;
  p.m = c.m; p.n = c.n; p.k = c.k;
  p.lda = c.lda; p.ldb = c.ldb; p.ldd = c.ldd;
  p.a_type = p.b_type = c.in;
  p.acc_type = acc;
  p.d_type = out;
  return p;
}

bool cpu_reference(const FuzzCase& c, const FuzzOptions& o) {
  // The other bounds cap what reference_gemm spends beside the MACs (17 G/s on the H200 host's 16
  // cores): its one-threaded K-major fp64 copies of A and B (~6 ns an element: 80 ms for
  // 16x2048x4096), and the output (a 3308x4922x3 reference costs 20x its MACs).
  return c.macs() <= o.cpu_ref_max_macs && double(c.m + c.n) * double(c.k) <= double(1 << 20) &&
         double(c.m) * double(c.n) <= double(1 << 22);
}

std::string reproducer(const Problem& p, int64_t offset, const std::string& kernel, uint64_t seed) {
  std::ostringstream s;
  s << "pipegemm verify --shape " << p.shape_string() << " --lda " << p.lda << " --ldb " << p.ldb << " --ldd "
    << p.ldd << " --dtype " << to_string(p.a_type) << " --acc " << to_string(p.acc_type) << " --out-dtype "
    << to_string(p.d_type) << " --kernel " << kernel << " --seed " << seed;
  if (offset) s << " --offset " << offset;
  return s.str();
}

Status parse_reproducer(std::string_view line, Problem* p, int64_t* offset, std::string* kernel, uint64_t* seed) {
  std::vector<std::string> t;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) t.push_back(w);
  if (t.size() < 2 || t[0] != "pipegemm" || t[1] != "verify") return bad("not a `pipegemm verify` line");
  Problem q;
  int64_t off = 0;
  uint64_t sd = 0;
  std::string name;
  for (size_t i = 2; i < t.size(); i += 2) {
    if (i + 1 >= t.size()) return bad(t[i] + " without a value");
    const std::string& f = t[i];
    const std::string& v = t[i + 1];
    bool ok = true;
    if (f == "--shape") ok = parse_shape(v, &q.m, &q.n, &q.k);
    else if (f == "--lda") ok = parse_int(v, &q.lda);
    else if (f == "--ldb") ok = parse_int(v, &q.ldb);
    else if (f == "--ldd") ok = parse_int(v, &q.ldd);
    else if (f == "--dtype") ok = parse_dtype(v, &q.a_type), q.b_type = q.a_type;
    else if (f == "--acc") ok = parse_dtype(v, &q.acc_type);
    else if (f == "--out-dtype") ok = parse_dtype(v, &q.d_type);
    else if (f == "--kernel") name = v;
    else if (f == "--seed") ok = parse_int(v, &sd);
    else if (f == "--offset") ok = parse_int(v, &off) && off >= 0;
    else return bad("unknown flag " + f);
    if (!ok) return bad("bad value '" + v + "' for " + f);
  }
  *p = q.normalized();
  *offset = off;
  *kernel = name;
  *seed = sd;
  return Status::success();
}

namespace detail {
std::vector<std::pair<DType, DType>> type_combos(DType in) {
  std::vector<std::pair<DType, DType>> out;
  for (const Variant& v : variants())
    if (v.a_type == in && std::find(out.begin(), out.end(), std::make_pair(v.acc_type, v.d_type)) == out.end())
      out.push_back({v.acc_type, v.d_type});
  return out;
}

const Variant* reference_peer(DType in) {
  const DType out = in == DType::i8 ? DType::i32 : DType::f32;
  for (const Variant& v : variants())
    if (v.is_peer() && v.a_type == in && v.acc_type == out && v.d_type == out) return &v;
  return nullptr;
}

Status check_options(const FuzzOptions& o) {
  if (o.count < 1) return bad("--count must be at least 1");
  if (o.max_dim < 16 || o.max_dim > 16384) return bad("--max-dim must be in [16, 16384]");
  if (o.dtypes.empty()) return bad("no input type to fuzz");
  for (DType t : o.dtypes)
    if (!offset_for(t)) return bad(std::string("--dtype ") + to_string(t) + " is not an input type");
  return Status::success();
}
}  // namespace detail

Status parse_dtypes(const std::vector<std::string>& names, std::vector<DType>* out) {
  std::vector<DType> ts;
  for (const std::string& arg : names) {
    std::istringstream in(arg);
    for (std::string w; std::getline(in, w, ',');) {
      if (w.empty()) continue;
      DType t;
      if (!parse_dtype(w, &t)) return bad("unknown --dtype '" + w + "' (f16, bf16, i8, f32)");
      if (t == DType::i32) return bad("--dtype i32: an accumulation/output type, not an input (i8 runs both)");
      if (std::find(ts.begin(), ts.end(), t) == ts.end()) ts.push_back(t);
    }
  }
  if (ts.empty()) ts = FuzzOptions{}.dtypes;
  *out = ts;
  return Status::success();
}

}  // namespace pipegemm::fuzz
