// The teaching variants' table lines (issue 14): each is a rung's kernel built to break one
// thing on purpose, so `pipegemm diagnose` can name the fault. Registered like their rung
// (LadderVariant: verify, bench, fuzz, plan and sass take them by name), but never auto's or
// tune's, and `pipegemm list` shows what each breaks and the verdict diagnose should give.
// The translation unit CMake makes for such a line includes the kernel's header first.
#pragma once

#include <type_traits>

#include "kernels/ladder_variant.cuh"

namespace pipegemm::detail {

// A config whose element-wise loads still need the 16-byte vector rule (its other operand, or its
// smem side, moves 16-byte vectors): k2_uncoalesced_a's A.
template <class Cfg, class = void>
struct VectorOperandsOf : std::false_type {};
template <class Cfg>
struct VectorOperandsOf<Cfg, std::void_t<decltype(Cfg::kVectorOperands)>> : std::bool_constant<Cfg::kVectorOperands> {};

template <class Cfg>
Variant teaching_entry(Variant v, const char* lesson) {
  v.auto_candidate = false;
  v.teaching = lesson;
  if constexpr (VectorOperandsOf<Cfg>::value) {  // LadderVariant::make's 16-byte rule
    v.req.k_multiple = v.req.ld_multiple = Cfg::Ops::kVec;
    v.req.ptr_align_bytes = 16;
    v.req.ldd_multiple = 1;
    v.req.d_align_bytes = int(sizeof(typename Cfg::TD));
  }
  return v;
}

}  // namespace pipegemm::detail

// A teaching line: the ladder's entry, finished by teaching_entry with its lesson.
#define PIPEGEMM_TEACHING_ENTRY(name, family, rung, t, Config, kernel, params, lesson) \
  PIPEGEMM_LADDER_ENTRY_AS(name, family, rung, t, Config, kernel, params, , teaching_entry, lesson)

// k2 with A read down its columns (kernels/teaching/k2_uncoalesced_a.cuh).
#define PIPEGEMM_K2_TEACH_UNCOALESCED(t, bm, bn, bk, wm, wn)                                          \
  PIPEGEMM_TEACHING_ENTRY(PIPEGEMM_NAME_K2_TEACH_UNCOALESCED(t, bm, bn, bk, wm, wn), "k2_dbuf_ldg", 2, t, \
                          teaching::UncoalescedAConfig, teaching::k2_uncoalesced_a_kernel,            \
                          (bm, bn, bk, wm, wn),                                                       \
                          "A read down its columns: each thread walks one row with 2-byte loads, so a " \
                          "warp's load touches 32 rows (32 sectors, 6% of each used); diagnose: "     \
                          "uncoalesced access")
// k4, unchanged, with a ring too shallow for its copy: one CTA per SM (registers), so no other
// CTA hides the copy latency the missing stages would have.
#define PIPEGEMM_K4_TEACH_STARVED(t, bm, bn, bk, s, wm, wn, g)                                        \
  PIPEGEMM_TEACHING_ENTRY(PIPEGEMM_NAME_K4_TEACH_STARVED(t, bm, bn, bk, s, wm, wn, g), "k4_multistage", 4, t, \
                          k4::MultistageConfig, k4::k4_multistage_kernel, (bm, bn, bk, s, wm, wn, g),  \
                          "fewer stages than its copy latency needs (pipegemm plan: minimum stages) at "  \
                          "one CTA per SM, so nothing else hides the copies; diagnose: stage starvation")
// k4, unchanged, one stage past an occupancy cliff: one stage fewer fits one more CTA per SM.
#define PIPEGEMM_K4_TEACH_CLIFF(t, bm, bn, bk, s, wm, wn, g)                                          \
  PIPEGEMM_TEACHING_ENTRY(PIPEGEMM_NAME_K4_TEACH_CLIFF(t, bm, bn, bk, s, wm, wn, g), "k4_multistage", 4, t, \
                          k4::MultistageConfig, k4::k4_multistage_kernel, (bm, bn, bk, s, wm, wn, g),  \
                          "one stage past the occupancy cliff (pipegemm plan): its smem fits one CTA per " \
                          "SM where one stage fewer fits two; diagnose: occupancy collapse")
