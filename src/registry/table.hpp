// What the lines of variants.def mean, shared by the two places that read the table:
// registry.cpp (declares and calls each line's registration function, in order) and
// instantiate.cuh (defines it, in the translation unit CMake makes for the line).
//
// A line's name is pasted from its fields (one scheme, docs/architecture.md), its registration
// function is register_<name>, and its types token names one TypeSet below.
#pragma once

#include "pipegemm/pipegemm.hpp"

#define PIPEGEMM_NAME_TILE(f, t, bm, bn, bk) f##_##t##_##bm##x##bn##x##bk
#define PIPEGEMM_NAME_K0(t, bm, bn, bk, wm, wn) PIPEGEMM_NAME_TILE(k0, t, bm, bn, bk)
#define PIPEGEMM_NAME_K1(t, bm, bn, bk, wm, wn) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(k1, t, bm, bn, bk), _s1)
#define PIPEGEMM_NAME_K2(t, bm, bn, bk, wm, wn) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(k2, t, bm, bn, bk), _s2)
#define PIPEGEMM_NAME_K3(t, bm, bn, bk, wm, wn) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(k3, t, bm, bn, bk), _s2)
#define PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(k4, t, bm, bn, bk), _s##s)
#define PIPEGEMM_NAME_K4_PERSISTENT(t, bm, bn, bk, s, wm, wn, g) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g), _persistent)
#define PIPEGEMM_NAME_K4_SPLITK(t, bm, bn, bk, s, wm, wn, g) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g), _splitk)
#define PIPEGEMM_NAME_SEED(t, bm, bn, bk, s) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(seed, t, bm, bn, bk), _s##s)
// Teaching variants (issue 14): the rung's name, then _teach_<what it breaks>.
#define PIPEGEMM_NAME_K2_TEACH_UNCOALESCED(t, bm, bn, bk, wm, wn) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K2(t, bm, bn, bk, wm, wn), _teach_uncoalesced)
#define PIPEGEMM_NAME_K4_TEACH_STARVED(t, bm, bn, bk, s, wm, wn, g) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g), _teach_starved)
#define PIPEGEMM_NAME_K4_TEACH_CLIFF(t, bm, bn, bk, s, wm, wn, g) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g), _teach_cliff)
#define PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(k5, t, bm, bn, bk), _s##s)
#define PIPEGEMM_NAME_K5_NOCLUSTER(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _nocluster)
#define PIPEGEMM_NAME_K5_PACKED(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _packed)
#define PIPEGEMM_NAME_K5_PINGPONG(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _pingpong)
#define PIPEGEMM_NAME_K5_B_RESIDENT(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _b_resident)
#define PIPEGEMM_NAME_K5_B_RESIDENT_K(t, bm, bn, bk, s, e, k) \
  PIPEGEMM_CAT(PIPEGEMM_NAME_K5_B_RESIDENT(t, bm, bn, bk, s, e), _k##k)
#define PIPEGEMM_NAME_K5_STREAMK(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _streamk)
#define PIPEGEMM_NAME_K5_CLUSTER1X2(t, bm, bn, bk, s, e) PIPEGEMM_CAT(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), _cluster1x2)
#define PIPEGEMM_NAME_SKINNY(t, mx, rows, bk, w) PIPEGEMM_CAT(PIPEGEMM_NAME_TILE(skinny, t, mx, rows, bk), _w##w)
#define PIPEGEMM_NAME_SKINNY_L2(t, mx, rows, bk, w) PIPEGEMM_CAT(PIPEGEMM_NAME_SKINNY(t, mx, rows, bk, w), _l2)
#define PIPEGEMM_NAME_SHORTK(t, bm, bn, kmax) PIPEGEMM_NAME_TILE(shortk, t, bm, bn, kmax)
#define PIPEGEMM_NAME_CUBLAS(t) cublas_##t
#define PIPEGEMM_NAME_CUBLASLT(t) cublaslt_##t

#define PIPEGEMM_CAT_(a, b) a##b
#define PIPEGEMM_CAT(a, b) PIPEGEMM_CAT_(a, b)
#define PIPEGEMM_STR_(a) #a
#define PIPEGEMM_STR(a) PIPEGEMM_STR_(a)
#define PIPEGEMM_REGISTER_FN(name) PIPEGEMM_CAT(register_, name)

namespace pipegemm::detail {

// The types tokens of the table: A/B, accumulator and D element types.
namespace types {
#define PIPEGEMM_TYPESET(token, a_, acc_, d_)                          \
  struct token {                                                       \
    static constexpr DType a = DType::a_, acc = DType::acc_, d = DType::d_; \
  };
PIPEGEMM_TYPESET(f16, f16, f32, f16)
PIPEGEMM_TYPESET(f16_f16acc, f16, f16, f16)
PIPEGEMM_TYPESET(f16_f32out, f16, f32, f32)
PIPEGEMM_TYPESET(bf16, bf16, f32, bf16)
PIPEGEMM_TYPESET(bf16_f32out, bf16, f32, f32)
PIPEGEMM_TYPESET(i8, i8, i32, i32)
PIPEGEMM_TYPESET(i8_f32out, i8, i32, f32)
PIPEGEMM_TYPESET(f32, f32, f32, f32)
#undef PIPEGEMM_TYPESET
}  // namespace types

}  // namespace pipegemm::detail
