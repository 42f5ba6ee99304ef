// Inside the SASS checker only: the instruction predicates and the overlap window that
// check.cpp (the rule) and loops.cpp (where the loop is, what overlaps in it) share.
#pragma once

#include <string>
#include <vector>

#include "pipegemm_tools/sass.hpp"

namespace pipegemm::sass::detail {

bool in(const std::vector<std::string>& ops, const Instr& i);
std::string hex(uint32_t a);
Cite cite(const Instr& i);
// A CTA-wide barrier that every thread waits at (BAR.SYNC, BAR.RED); BAR.ARV does not wait.
bool is_cta_barrier(const Instr& i);
// BAR.SYNC id, count with a literal count below cta_threads: a named barrier of some warps only.
bool is_partial_barrier(const Instr& i, int cta_threads);
// Anything that can hold the next iteration until data or peers are ready.
bool is_wait(const Instr& i);

struct Window {
  std::vector<int> strict;     // MMAs after the load with no CTA barrier or wait on it between
  std::vector<int> in_flight;  // MMAs issued before the load is waited for (barriers ignored)
  int blocker = -1;            // what ended the strict window (-1: a full turn of the loop)
};
// Walks the loop body cyclically from the load at body index `li`: the loop body repeats, so
// an MMA past the back edge is the next iteration's and still overlaps this load.
Window window_of(const std::vector<const Instr*>& body, int li, const Expect& e);

}  // namespace pipegemm::sass::detail
