// Auto's policy for a variant table line: the k5 lines' last column (variants.def), applied here
// and nowhere else.
#pragma once

#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::detail {

enum class AutoPolicy {
  candidate,  // auto may choose it on any problem it accepts
  tuned,      // only where the problem's own tune entry timed it fastest (tune times it)
  by_name,    // a caller names it; auto never does
};

inline void set_auto_policy(Variant& v, AutoPolicy p) {
  v.auto_candidate = p == AutoPolicy::candidate;
  v.auto_tuned_only = p == AutoPolicy::tuned;
}

}  // namespace pipegemm::detail
