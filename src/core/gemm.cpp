// The one run path: GemmCall::make (validate once, resolve, check) then GemmCall::launch.
// gemm() is the two in a row; verify and bench make a call once and launch it.
#include <cstdio>

#include "core/dispatch.hpp"
#include "pipegemm/dispatch.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {

namespace {

// Bytes from the first to one past the last element of a rows x cols matrix (ld >= a row).
uintptr_t span_bytes(int64_t rows, int64_t cols, int64_t ld, Layout l, DType t) {
  const int64_t elems = l == Layout::RowMajor ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
  return uintptr_t(elems) * uintptr_t(dtype_bytes(t));
}

std::string hex(uintptr_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// D is written while A and B are read: its byte span may not meet theirs (A and B may overlap).
Status check_no_overlap(const Problem& p, const void* A, const void* B, const void* D) {
  const uintptr_t d0 = reinterpret_cast<uintptr_t>(D), d1 = d0 + span_bytes(p.m, p.n, p.ldd, p.d_layout, p.d_type);
  struct { const char* name; uintptr_t at, bytes; } in[] = {
      {"A", reinterpret_cast<uintptr_t>(A), span_bytes(p.m, p.k, p.lda, p.a_layout, p.a_type)},
      {"B", reinterpret_cast<uintptr_t>(B), span_bytes(p.n, p.k, p.ldb, p.b_layout, p.b_type)}};
  for (auto& x : in)
    if (x.at < d1 && d0 < x.at + x.bytes)
      return Status::error(StatusCode::invalid_argument,
                           std::string("D overlaps ") + x.name + ": D is [" + hex(d0) + ", " + hex(d1) + "), " + x.name +
                               " is [" + hex(x.at) + ", " + hex(x.at + x.bytes) +
                               "); D must not share bytes with A or B (no in-place GEMM)");
  return Status::success();
}

// Everything a call needs before a variant is looked at: a valid problem, pointers (D apart
// from A and B), a GPU (the current device).
Status prepare(const Problem& in, const void* A, const void* B, const void* D, Problem* p, int* sm) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  if (!A || !B || !D)
    return Status::error(StatusCode::invalid_argument, "A, B and D must be device pointers, not null");
  if (!(s = check_no_overlap(in.normalized(), A, B, D)).ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  if (dev.sm < 80)
    return Status::error(StatusCode::not_supported,
                         "pipegemm needs sm_80 or newer; device " + dev.name + " is sm_" + std::to_string(dev.sm));
  *p = in.normalized();
  *sm = dev.sm;
  return Status::success();
}

}  // namespace

Status GemmCall::make(const Problem& in, std::string_view variant, const void* A, const void* B,
                      const void* D, GemmCall* out) {
  Problem p;
  int sm = 0;
  Status s = prepare(in, A, B, D, &p, &sm);
  if (!s.ok()) return s;
  GemmCall c;
  if (variant.empty() || variant == "auto") {
    const Choice ch = auto_choice(p, A, B, D);
    if (!ch.variant) return Status::error(StatusCode::not_supported, ch.why);
    c.v_ = ch.variant;
    c.why_ = "auto, " + ch.why;
  } else {
    c.v_ = find_variant(variant);
    if (!c.v_)
      return Status::error(StatusCode::invalid_argument,
                           "unknown variant '" + std::string(variant) + "' (see `pipegemm list`)");
    if (!(s = detail::accepts(*c.v_, p, sm, A, B, D)).ok()) return s;
    c.why_ = "asked for by name";
  }
  c.p_ = p;
  *out = std::move(c);
  return Status::success();
}

Status GemmCall::make(const Problem& in, const Variant& v, const void* A, const void* B, const void* D,
                      GemmCall* out) {
  Problem p;
  int sm = 0;
  Status s = prepare(in, A, B, D, &p, &sm);
  if (!s.ok()) return s;
  if (!(s = detail::accepts(v, p, sm, A, B, D)).ok()) return s;
  out->v_ = &v;
  out->p_ = p;
  out->why_ = "asked for";
  return Status::success();
}

Status GemmCall::launch(const void* A, const void* B, void* D, cudaStream_t_ stream) const {
  if (!v_) return Status::error(StatusCode::invalid_argument, "GemmCall::launch before a successful make()");
  return v_->launch(p_, A, B, D, stream);
}

Status gemm(const Problem& p, const void* A, const void* B, void* D, const Options& opt, std::string* chosen) {
  GemmCall call;
  Status s = GemmCall::make(p, opt.variant, A, B, D, &call);
  if (!s.ok()) return s;
  if (chosen) *chosen = call.variant().name;
  return call.launch(A, B, D, opt.stream);
}

}  // namespace pipegemm
