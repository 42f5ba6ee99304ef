// The fuzzer's problem generator (the rules are in fuzz.hpp; its reproducer lines: reproducer.cpp)
// and what runs for an input type: its type combinations and its large problems' cuBLAS reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

// The share of problems drawn on the tensor-core kernels' ground: M, N, K, every leading dimension
// and pointer in whole 16-byte vectors. Elsewhere a problem is that aligned only by chance (K even
// half the time, each pad odd), which left k5 -- N in whole vectors, 16-byte pointers -- with ~1% of
// the problems (B-resident, N <= 256 and K <= 256 too, drew none in 1,000).
constexpr double kVectorAlignedFraction = 0.25;

Status bad(std::string m) { return Status::error(StatusCode::invalid_argument, std::move(m)); }

}  // namespace

bool FuzzCase::plain() const {
  return a_layout == Layout::RowMajor && b_layout == Layout::RowMajor && d_layout == Layout::RowMajor && alpha == 1.f &&
         ialpha == 1 && c == CBinding::none && bias == Bias::none && act == Activation::none && batch == 1;
}

bool FuzzCase::operator==(const FuzzCase& o) const {
  return index == o.index && in == o.in && m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb &&
         ldd == o.ldd && offset == o.offset && a_layout == o.a_layout && b_layout == o.b_layout &&
         d_layout == o.d_layout && alpha == o.alpha && beta == o.beta && ialpha == o.ialpha && ibeta == o.ibeta &&
         c == o.c && c_f32 == o.c_f32 && ldc == o.ldc && bias == o.bias && bias_f32 == o.bias_f32 && act == o.act &&
         batch == o.batch && broadcast == o.broadcast;
}

int64_t offset_for(DType in) {
  switch (in) {
    case DType::i8: return 4;  // 4 bytes: what k0 (widest element: int32 D) and cuBLAS IMMA need
    case DType::f16: case DType::bf16: case DType::f32: return 1;
    case DType::i32: return 0;  // an output type, never an input
  }
  return 0;
}

std::vector<FuzzCase> generate_cases(DType in, uint64_t seed, int count, int64_t max_dim, double plain_fraction) {
  Rng rng{seed ^ (0xd1b54a32d192ed03ull * (uint64_t(in) + 1))};
  const int64_t vec = 16 / dtype_bytes(in);
  static constexpr float kAlpha[] = {0.5f, -1.f, 2.f, 1.5f, -0.75f, 0.25f};
  static constexpr int kIAlpha[] = {2, -1, 3, -2};
  static constexpr float kBeta[] = {1.f, 0.5f, -1.f, 2.f, -0.25f};
  static constexpr int kIBeta[] = {1, -1, 2, 3};
  std::vector<FuzzCase> out;
  out.reserve(size_t(std::max(count, 0)));
  for (int i = 0; i < count; ++i) {
    FuzzCase c;
    c.index = i;
    c.in = in;
    // Every draw is taken whether used or not: case i does not depend on earlier coin flips.
    const bool semantic = rng.unit() >= plain_fraction;
    const uint64_t batch_draw = rng.next();
    const int64_t batch = semantic && !(batch_draw & 1) ? 2 + int64_t((batch_draw >> 1) % 3) : 1;
    // Problems with semantics stay within the CPU reference's reach.
    const int64_t top = !semantic ? max_dim : std::min<int64_t>(max_dim, batch > 1 ? 512 : 1024);
    c.m = rng.log_uniform(top);
    c.n = rng.log_uniform(top);
    c.k = rng.log_uniform(top);
    const bool odd_k = rng.coin();
    const bool pad[4] = {rng.coin(), rng.coin(), rng.coin(), rng.coin()};
    const int64_t pads[4] = {rng.odd_pad(), rng.odd_pad(), rng.odd_pad(), rng.odd_pad()};
    const bool shifted = rng.coin();
    const uint64_t layouts = rng.next(), alpha = rng.next(), binding = rng.next(), beta = rng.next(),
                   bias = rng.next(), act = rng.next(), broadcast = rng.next();
    const bool c_f32 = rng.coin(), bias_f32 = rng.coin();
    const bool aligned = rng.unit() < kVectorAlignedFraction;
    auto whole_vectors = [&](int64_t v) { return std::max(vec, std::min((v + vec - 1) / vec * vec, top / vec * vec)); };
    if (aligned && top >= vec) {  // every dimension and leading dimension a vector multiple, no offset
      c.m = whole_vectors(c.m);
      c.n = whole_vectors(c.n);
      c.k = whole_vectors(c.k);
    } else if (odd_k) {
      c.k |= 1;
      if (c.k > top) c.k -= 2;
    } else {
      c.k = (c.k + vec - 1) / vec * vec;
      if (c.k > top) c.k = top / vec * vec;
    }
    if (semantic) {
      c.a_layout = layouts & 1 ? Layout::ColMajor : Layout::RowMajor;
      c.b_layout = layouts & 2 ? Layout::ColMajor : Layout::RowMajor;
      c.d_layout = layouts & 4 ? Layout::ColMajor : Layout::RowMajor;
      if (alpha & 1) {
        c.alpha = kAlpha[(alpha >> 1) % 6];
        c.ialpha = kIAlpha[(alpha >> 8) % 4];
      }
      c.c = CBinding(binding % 3);
      if (c.c != CBinding::none) {
        c.beta = kBeta[beta % 5];
        c.ibeta = kIBeta[(beta >> 8) % 4];
        c.c_f32 = c.c == CBinding::apart && c_f32;
      }
      c.bias = Bias(bias % 3);
      c.bias_f32 = c.bias != Bias::none && bias_f32;
      c.act = Activation(act % 4);
      c.batch = batch;
      if (batch > 1) {
        const int which = int(broadcast % 4);  // none, A, B, C (a C apart only)
        c.broadcast = which == 1 ? 'a' : which == 2 ? 'b' : which == 3 && c.c == CBinding::apart ? 'c' : 0;
      }
    }
    const bool a_row = c.a_layout == Layout::RowMajor, b_row = c.b_layout == Layout::RowMajor;
    const int64_t d_row = c.d_layout == Layout::RowMajor ? c.n : c.m;
    const bool vectors = aligned && top >= vec;
    // A pad: odd, or (vector-aligned) 1-4 whole vectors.
    auto pad_of = [&](int i) { return !pad[i] ? 0 : vectors ? vec * (1 + (pads[i] / 2) % 4) : pads[i]; };
    c.lda = (a_row ? c.k : c.m) + pad_of(0);
    c.ldb = (b_row ? c.k : c.n) + pad_of(1);
    c.ldd = d_row + pad_of(2);
    c.ldc = c.c == CBinding::apart ? d_row + pad_of(3) : c.c == CBinding::in_place ? c.ldd : 0;
    c.offset = shifted && !vectors ? offset_for(in) : 0;
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
  p.a_layout = c.a_layout; p.b_layout = c.b_layout; p.d_layout = c.d_layout;
  const bool int_d = out == DType::i32;
  p.alpha = int_d ? float(c.ialpha) : c.alpha;
  if (c.c != CBinding::none) {
    p.beta = int_d ? float(c.ibeta) : c.beta;
    p.ldc = c.ldc;
    if (c.c_f32 && (out == DType::f16 || out == DType::bf16)) p.c_type = DType::f32;
  }
  if (!int_d) {
    p.bias = c.bias;
    if (c.bias != Bias::none && c.bias_f32) p.bias_type = DType::f32;
    p.activation = c.act;
  }
  p.batch = c.batch;
  if (c.broadcast == 'a') p.stride_a = 0;
  if (c.broadcast == 'b') p.stride_b = 0;
  if (c.broadcast == 'c') p.stride_c = 0;
  return p;
}

bool cpu_reference(const FuzzCase& c, const FuzzOptions& o) {
  if (!c.plain()) return true;  // the generator kept it within reach
  // The other bounds cap what reference_gemm spends beside the MACs (17 G/s on the H200 host's 16
  // cores): its K-major fp64 copies of A and B (~6 ns an element: 80 ms for 16x2048x4096), and the
  // output (a 3308x4922x3 reference costs 20x its MACs).
  return c.macs() <= o.cpu_ref_max_macs && double(c.m + c.n) * double(c.k) <= double(1 << 20) &&
         double(c.m) * double(c.n) <= double(1 << 22);
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
  if (!(o.plain_fraction >= 0 && o.plain_fraction <= 1)) return bad("--plain-fraction must be in [0, 1]");
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
