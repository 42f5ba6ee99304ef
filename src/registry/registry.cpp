#include "pipegemm/registry.hpp"

#include "registry/families.hpp"

namespace pipegemm {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    detail::append_cublas_variants(v);  // entry 0: the peers
    detail::append_k4_seed_f16acc(v);
    detail::append_k4_seed_f32acc(v);
    return v;
  }();
  return all;
}

const Variant* find_variant(std::string_view name) {
  for (const Variant& v : variants())
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace pipegemm
