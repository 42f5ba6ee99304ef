// The one run path: GemmCall::make (validate once, resolve, check) then GemmCall::launch.
// gemm() is the two in a row; verify and bench make a call once and launch it.
#include <cstdio>

#include "core/dispatch.hpp"
#include "kernels/epilogue_only.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {

namespace {

std::string hex(uintptr_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The bytes a matrix of the whole batch touches, [at, at + bytes).
struct Extent {
  const char* name;
  uintptr_t at, bytes;
  bool meets(const Extent& o) const { return at < o.at + o.bytes && o.at < at + bytes; }
  std::string str() const { return std::string(name) + " is [" + hex(at) + ", " + hex(at + bytes) + ")"; }
};
Extent extent(const char* name, const void* ptr, const MatrixView& v, int64_t batch, DType t) {
  return {name, reinterpret_cast<uintptr_t>(ptr), uintptr_t(v.batch_bytes(batch, t))};
}

// D is written while A, B, C and the bias are read: its bytes may not meet theirs (the inputs
// may overlap each other), except a C that is D itself (in place: the same pointer, ldc, type,
// stride -- each element read once, then written by the same thread).
Status check_no_overlap(const Problem& p, const Operands& x) {
  const Extent d = extent("D", x.d, view_d(p), p.batch, p.d_type);
  std::vector<Extent> in = {extent("A", x.a, view_a(p), p.batch, p.a_type), extent("B", x.b, view_b(p), p.batch, p.b_type)};
  if (p.reads_c()) {
    if (!detail::c_in_place(p, x)) in.push_back(extent("C", x.c, view_c(p), p.batch, *p.c_type));
  }
  if (p.bias != Bias::none) {
    const int64_t len = p.bias == Bias::per_row ? p.m : p.n;
    in.push_back({"the bias", reinterpret_cast<uintptr_t>(x.bias), uintptr_t(len) * uintptr_t(dtype_bytes(*p.bias_type))});
  }
  for (const Extent& e : in)
    if (e.meets(d))
      return Status::error(StatusCode::invalid_argument,
                           "D overlaps " + std::string(e.name) + ": " + d.str() + ", " + e.str() +
                               "; D must not share bytes with A, B, the bias, or a C other than D itself");
  return Status::success();
}

// Everything a call needs before a variant is looked at: a valid problem, pointers (D apart
// from the inputs), a GPU (the current device). *p: normalized, D row-major (row_major_d), *y
// the operands as the variant takes them.
Status check_call(const Problem& in, const Operands& x, Problem* p, Operands* y, bool* swapped, int* sm) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  const Problem n = in.normalized();
  if (!x.a || !x.b || !x.d)
    return Status::error(StatusCode::invalid_argument, "A, B and D must be device pointers, not null");
  if (n.reads_c() && !x.c)
    return Status::error(StatusCode::invalid_argument, "beta != 0 reads C: C must be a device pointer, not null");
  if (n.bias != Bias::none && !x.bias)
    return Status::error(StatusCode::invalid_argument, "a bias was asked for: the bias must be a device pointer, not null");
  if (!(s = check_no_overlap(n, x)).ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  if (dev.sm < 80)
    return Status::error(StatusCode::not_supported,
                         "pipegemm needs sm_80 or newer; device " + dev.name + " is sm_" + std::to_string(dev.sm));
  *p = row_major_d(n, swapped);
  *y = x;
  if (*swapped) std::swap(y->a, y->b);
  if (!p->reads_c()) y->c = nullptr;
  if (p->bias == Bias::none) y->bias = nullptr;
  *sm = dev.sm;
  return Status::success();
}

Operands abd(const void* A, const void* B, const void* D) { return Operands{A, B, const_cast<void*>(D)}; }

// ---- zero sizes, as torch defines them -----------------------------------------------------------
// M, N or batch = 0: nothing to compute, nothing launched. K = 0: the product is all zeros, so D =
// act(beta C + bias) -- the epilogue alone (kernels/epilogue_only.cu). Not a registered kernel: these
// two stand in the GemmCall so a caller can still ask variant() what runs.
Variant zero_size_entry(const char* name, std::string description) {
  Variant v;
  v.name = name;
  v.family = "zero_size";
  v.rung = 0;
  v.description = std::move(description);
  v.auto_candidate = false;
  return v;
}
const Variant& nothing_to_compute() {
  static const Variant v = zero_size_entry("empty", "M, N or batch = 0: nothing is launched");
  return v;
}
const Variant& epilogue_only() {
  static const Variant v = [] {
    Variant e = zero_size_entry("epilogue_only", "K = 0: D = act(beta C + bias), the epilogue alone");
    e.launch = &detail::launch_epilogue_only;
    return e;
  }();
  return v;
}

bool zero_size(const Problem& p) { return p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0; }

// A zero-size problem's checks: sizes >= 0, and what is still read or written -- D, C and the bias
// when M, N and batch are not 0 -- checked as the same problem with K = 1 would be (A and B are
// never read: they may be null).
Status validate_zero_size(const Problem& in, const Operands& x, Problem* out) {
  if (in.m < 0 || in.n < 0 || in.k < 0 || in.batch < 0)
    return Status::error(StatusCode::invalid_argument, "sizes must be >= 0 (got M=" + std::to_string(in.m) + " N=" +
                                                           std::to_string(in.n) + " K=" + std::to_string(in.k) +
                                                           " batch=" + std::to_string(in.batch) + ")");
  if (in.m == 0 || in.n == 0 || in.batch == 0) {
    *out = in;
    return Status::success();
  }
  Problem k1 = in;
  k1.k = 1;
  if (k1.a_layout == Layout::RowMajor ? k1.lda < 1 : k1.lda < k1.m) k1.lda = 0;  // A is never read
  if (k1.b_layout == Layout::RowMajor ? k1.ldb < 1 : k1.ldb < k1.n) k1.ldb = 0;
  if (k1.stride_a >= 0 && k1.batch > 1) k1.stride_a = -1;
  if (k1.stride_b >= 0 && k1.batch > 1) k1.stride_b = -1;
  Status s = validate_problem(k1);
  if (!s.ok()) return s;
  if (!x.d) return Status::error(StatusCode::invalid_argument, "D must be a device pointer, not null");
  if (in.beta != 0.f && !x.c)
    return Status::error(StatusCode::invalid_argument, "beta != 0 reads C: C must be a device pointer, not null");
  if (in.bias != Bias::none && !x.bias)
    return Status::error(StatusCode::invalid_argument, "a bias was asked for: the bias must be a device pointer, not null");
  Problem n = k1.normalized();
  n.k = 0;
  *out = n;
  return Status::success();
}

// How a variant given by the caller was chosen (GemmCall::why()); by name, " by name" follows it.
constexpr std::string_view kAskedFor = "asked for";

}  // namespace

Status GemmCall::make_zero_size(const Problem& in, const Operands& x, GemmCall* out) {
  Problem n;
  Status s = validate_zero_size(in, x, &n);
  if (!s.ok()) return s;
  GemmCall c;
  c.p_ = n;
  if (n.m == 0 || n.n == 0 || n.batch == 0) {
    c.v_ = &nothing_to_compute();
    c.why_ = "nothing to compute (M, N or batch = 0)";
  } else {
    const DeviceInfo& dev = device_info();
    if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
    bool swapped = false;
    c.p_ = row_major_d(n, &swapped);
    c.swapped_ = swapped;
    c.v_ = &epilogue_only();
    c.why_ = "K = 0: D = act(beta C + bias)";
  }
  *out = std::move(c);
  return Status::success();
}

Status GemmCall::make(const Problem& in, std::string_view variant, const Operands& x, GemmCall* out) {
  if (zero_size(in)) return make_zero_size(in, x, out);
  if (!variant.empty() && variant != "auto") {
    const Variant* v = find_variant(variant);
    if (!v)
      return Status::error(StatusCode::invalid_argument,
                           "unknown variant '" + std::string(variant) + "' (see `pipegemm list`)");
    const Status s = make(in, *v, x, out);
    if (s.ok()) out->why_.insert(kAskedFor.size(), " by name");
    return s;
  }
  Problem p;
  Operands y;
  bool swapped = false;
  int sm = 0;
  Status s = check_call(in, x, &p, &y, &swapped, &sm);
  if (!s.ok()) return s;
  GemmCall c;
  const Choice ch = auto_choice(p, y);
  if (!ch.variant) return Status::error(StatusCode::not_supported, ch.why);
  c.v_ = ch.variant;
  c.why_ = "auto, " + ch.why;
  // A peer can find no algorithm at launch (cuBLASLt's heuristic; cublasGemmEx refusing int8
  // strides it cannot vector-load): then launch() runs it on the highest rung of ours.
  c.may_fall_back_ = c.v_->is_peer();
  if (swapped) c.why_ += " (D column-major: computed as D^T = B A^T)";
  c.p_ = p;
  c.swapped_ = swapped;
  *out = std::move(c);
  return Status::success();
}

Status GemmCall::make(const Problem& in, const Variant& v, const Operands& x, GemmCall* out) {
  if (zero_size(in)) return make_zero_size(in, x, out);
  Problem p;
  Operands y;
  bool swapped = false;
  int sm = 0;
  Status s = check_call(in, x, &p, &y, &swapped, &sm);
  if (!s.ok()) return s;
  if (!(s = detail::accepts(v, p, sm, y)).ok()) return s;
  GemmCall c;  // built apart and moved in, as above: *out is untouched by a refusal
  c.v_ = &v;
  c.p_ = p;
  c.swapped_ = swapped;
  c.why_ = std::string(kAskedFor) + (swapped ? " (D column-major: computed as D^T = B A^T)" : "");
  *out = std::move(c);
  return Status::success();
}

Status GemmCall::make(const Problem& p, std::string_view variant, const void* A, const void* B, const void* D,
                      GemmCall* out) {
  return make(p, variant, abd(A, B, D), out);
}

Status GemmCall::make(const Problem& p, const Variant& v, const void* A, const void* B, const void* D, GemmCall* out) {
  return make(p, v, abd(A, B, D), out);
}

namespace {
Operands as_launched(const Problem& p, const Operands& x, bool swapped) {
  Operands y = x;
  if (swapped) std::swap(y.a, y.b);
  if (!p.reads_c()) y.c = nullptr;
  if (p.bias == Bias::none) y.bias = nullptr;
  return y;
}
}  // namespace

Status GemmCall::launch(const Operands& x, cudaStream_t_ stream, std::string* ran) const {
  if (!v_) return Status::error(StatusCode::invalid_argument, "GemmCall::launch before a successful make()");
  if (ran) *ran = v_->name;
  if (!v_->launch) return Status::success();  // nothing to compute
  if (x.workspace && reinterpret_cast<uintptr_t>(x.workspace) % 256)
    return Status::error(StatusCode::invalid_argument, "the workspace must be 256-byte aligned");
  const Operands y = as_launched(p_, x, swapped_);
  const Status s = v_->launch(p_, y, stream);
  // A peer that found no algorithm launched nothing: D is untouched, and the highest rung of ours
  // that accepts the problem runs it (k0 takes everything). Searched here, not in make(): the
  // search is a loop over the table that a call the peer runs never needs.
  if (s.code != StatusCode::not_supported || !may_fall_back_) return s;
  const Variant* fallback = nullptr;
  for (const Variant& v : variants())
    if (!v.is_peer() && v.auto_takes() && (!fallback || v.rung > fallback->rung) &&
        detail::accepts(v, p_, device_info().sm, y).ok())
      fallback = &v;
  if (fallback && ran) *ran = fallback->name;
  return fallback ? fallback->launch(p_, y, stream) : s;
}

Status GemmCall::launch(const void* A, const void* B, void* D, cudaStream_t_ stream) const {
  return launch(abd(A, B, D), stream);
}

Status GemmCall::prepare(const Operands& x, cudaStream_t_ stream, std::string* state) const {
  if (state) state->clear();
  if (!v_ || !v_->prepare) return Status::success();
  return v_->prepare(p_, as_launched(p_, x, swapped_), stream, state);
}

size_t GemmCall::workspace_bytes(const Operands& x) const {
  if (!v_ || !v_->workspace) return 0;
  return v_->workspace(p_, as_launched(p_, x, swapped_));
}

// Operands for sizing: the caller's where given, else 256-byte-aligned stand-ins (cudaMalloc's), far
// apart, so the choice is the one such buffers get.
size_t workspace_bytes(const Problem& p, const Options& opt, const Operands* x) {
  Operands y;
  if (x) {
    y = *x;
  } else {
    y.a = reinterpret_cast<const void*>(uintptr_t(1) << 40);
    y.b = reinterpret_cast<const void*>(uintptr_t(2) << 40);
    y.d = reinterpret_cast<void*>(uintptr_t(3) << 40);
    y.c = p.reads_c() ? reinterpret_cast<const void*>(uintptr_t(4) << 40) : nullptr;
    y.bias = p.bias != Bias::none ? reinterpret_cast<const void*>(uintptr_t(5) << 40) : nullptr;
  }
  GemmCall call;
  if (!GemmCall::make(p, opt.variant, y, &call).ok()) return 0;
  return call.workspace_bytes(y);
}

Status gemm(const Problem& p, const Operands& x_in, const Options& opt, std::string* chosen) {
  Operands x = x_in;
  if (opt.workspace) x.workspace = opt.workspace, x.workspace_bytes = opt.workspace_bytes;
  GemmCall call;
  Status s = GemmCall::make(p, opt.variant, x, &call);
  if (!s.ok()) return s;
  return call.launch(x, opt.stream, chosen);
}

Status gemm(const Problem& p, const void* A, const void* B, void* D, const Options& opt, std::string* chosen) {
  return gemm(p, abd(A, B, D), opt, chosen);
}

}  // namespace pipegemm
