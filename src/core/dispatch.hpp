// Between validate.cpp and gemm.cpp: the checks on a problem that is already validated and
// normalized, so a problem is validated once however many variants look at it.
#pragma once

#include <string>

#include "pipegemm/registry.hpp"

namespace pipegemm::detail {
// check_variant without re-validating the problem.
Status accepts(const Variant& v, const Problem& p, int sm, const void* A, const void* B, const void* D);
// choose_variant without re-validating the problem (auto: pipegemm/dispatch.hpp, dispatch.cpp).
const Variant* choose(const Problem& p, int sm, const void* A, const void* B, const void* D,
                      std::string* why);
}  // namespace pipegemm::detail
