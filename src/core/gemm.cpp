#include "pipegemm/device.hpp"
#include "pipegemm/registry.hpp"

namespace pipegemm {

Status gemm(const Problem& in, const void* A, const void* B, void* D, const Options& opt,
            std::string* chosen) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  if (!A || !B || !D)
    return Status::error(StatusCode::invalid_argument, "A, B and D must be device pointers, not null");
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  if (dev.sm < 80)
    return Status::error(StatusCode::not_supported,
                         "pipegemm needs sm_80 or newer; device " + dev.name + " is sm_" +
                             std::to_string(dev.sm));
  Problem p = in.normalized();
  const Variant* v = nullptr;
  if (opt.variant.empty() || opt.variant == "auto") {
    std::string why;
    v = choose_variant(p, dev.sm, A, B, D, &why);
    if (!v) return Status::error(StatusCode::not_supported, "no variant accepts this problem:\n" + why);
  } else {
    v = find_variant(opt.variant);
    if (!v) return Status::error(StatusCode::invalid_argument, "unknown variant '" + opt.variant + "' (see `pipegemm list`)");
    s = check_variant(*v, p, dev.sm, A, B, D);
    if (!s.ok()) return s;
  }
  if (chosen) *chosen = v->name;
  return v->launch(p, A, B, D, opt.stream);
}

}  // namespace pipegemm
