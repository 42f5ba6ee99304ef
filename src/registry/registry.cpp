#include "pipegemm/registry.hpp"

#include "registry/families.hpp"

namespace pipegemm {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    detail::append_cublas_variants(v);  // entry 0: the peers
    detail::append_k5_ws_tma_wgmma(v);
    // The ladder, k0..k4; within a rung the preferred config first (choose_variant takes it).
    detail::append_k0_simple_f16(v);
    detail::append_k0_simple_bf16(v);
    detail::append_k0_simple_i8(v);
    detail::append_k0_simple_f32(v);
    detail::append_k1_smem_single_f16(v);
    detail::append_k1_smem_single_bf16(v);
    detail::append_k1_smem_single_i8(v);
    detail::append_k1_smem_single_f32(v);
    detail::append_k2_dbuf_ldg_f16(v);
    detail::append_k2_dbuf_ldg_bf16(v);
    detail::append_k2_dbuf_ldg_i8(v);
    detail::append_k2_dbuf_ldg_f32(v);
    detail::append_k3_dbuf_cp_async_f16(v);
    detail::append_k3_dbuf_cp_async_bf16(v);
    detail::append_k3_dbuf_cp_async_i8(v);
    detail::append_k3_dbuf_cp_async_f32(v);
    detail::append_k4_multistage_f16(v);
    detail::append_k4_multistage_f16acc(v);
    detail::append_k4_multistage_bf16(v);
    detail::append_k4_multistage_i8(v);
    detail::append_k4_multistage_f32(v);
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
