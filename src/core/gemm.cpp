// The one run path: GemmCall::make (validate once, resolve, check) then GemmCall::launch.
// gemm() is the two in a row; verify and bench make a call once and launch it.
#include "core/dispatch.hpp"
#include "pipegemm/dispatch.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {

namespace {

// Everything a call needs before a variant is looked at: a valid problem, pointers, a GPU.
Status prepare(const Problem& in, const void* A, const void* B, const void* D, Problem* p, int* sm) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  if (!A || !B || !D)
    return Status::error(StatusCode::invalid_argument, "A, B and D must be device pointers, not null");
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
