// One function per kernel family appends its registered variants; registry.cpp calls them in
// ladder order. Adding a family = one line here, one in registry.cpp, one in CMakeLists.txt.
#pragma once
#include <vector>

#include "pipegemm/registry.hpp"

namespace pipegemm::detail {
void append_cublas_variants(std::vector<Variant>& out);
void append_k4_seed_f16acc(std::vector<Variant>& out);
void append_k4_seed_f32acc(std::vector<Variant>& out);
}  // namespace pipegemm::detail
