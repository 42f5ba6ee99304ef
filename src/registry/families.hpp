// One function per kernel family appends its registered variants; registry.cpp calls them in
// ladder order. Adding a family = one line here, one in registry.cpp, one in CMakeLists.txt.
#pragma once
#include <vector>

#include "pipegemm/registry.hpp"

namespace pipegemm::detail {
void append_cublas_variants(std::vector<Variant>& out);
void append_k5_ws_tma_wgmma(std::vector<Variant>& out);  // issue 6, sm_90a
// The ladder (issue 5), one function per rung x data type.
void append_k0_simple_f16(std::vector<Variant>& out);
void append_k0_simple_bf16(std::vector<Variant>& out);
void append_k0_simple_i8(std::vector<Variant>& out);
void append_k0_simple_f32(std::vector<Variant>& out);
void append_k1_smem_single_f16(std::vector<Variant>& out);
void append_k1_smem_single_bf16(std::vector<Variant>& out);
void append_k1_smem_single_i8(std::vector<Variant>& out);
void append_k1_smem_single_f32(std::vector<Variant>& out);
void append_k2_dbuf_ldg_f16(std::vector<Variant>& out);
void append_k2_dbuf_ldg_bf16(std::vector<Variant>& out);
void append_k2_dbuf_ldg_i8(std::vector<Variant>& out);
void append_k2_dbuf_ldg_f32(std::vector<Variant>& out);
void append_k3_dbuf_cp_async_f16(std::vector<Variant>& out);
void append_k3_dbuf_cp_async_bf16(std::vector<Variant>& out);
void append_k3_dbuf_cp_async_i8(std::vector<Variant>& out);
void append_k3_dbuf_cp_async_f32(std::vector<Variant>& out);
void append_k4_multistage_f16(std::vector<Variant>& out);
void append_k4_multistage_f16acc(std::vector<Variant>& out);
void append_k4_multistage_bf16(std::vector<Variant>& out);
void append_k4_multistage_i8(std::vector<Variant>& out);
void append_k4_multistage_f32(std::vector<Variant>& out);
void append_k4_seed_f16acc(std::vector<Variant>& out);
void append_k4_seed_f32acc(std::vector<Variant>& out);
}  // namespace pipegemm::detail
