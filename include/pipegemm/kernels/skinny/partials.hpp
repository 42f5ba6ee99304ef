// Where the skinny kernel's warps meet: each warp's (ROWS x MAX_X) fp32 partial sums in shared
// memory, written from mma.sync's accumulator fragments and read back in D's store order.
// Plain C++ (constexpr, called on the device through --expt-relaxed-constexpr), so the CPU test
// counts the bank conflicts of the very mapping the kernel uses.
//
// Row-major (r * MAX_X + xr) a read in store order with X = A (D's rows are X's: stores run along
// W, so a warp reads 32 W rows of one X column) put all 32 lanes on 32 / MAX_X banks: 32-way
// conflicts for MAX_X = 32 -- 4096 shared-memory wavefronts per CTA where 128 suffice, about
// 2 us of a tiny problem's time. The column is XOR-ed with the row's index among the rows that
// share a 32-bank line, rotated so that t (r's bits 1-2, which differ across a fragment write's
// lanes) lands on the column's bits 3-4: every read conflict-free where ROWS is 32 or 64 (the
// registered tiles; other multiples of 8 keep some 2-way reads), writes conflict-free for MAX_X =
// 32 and 2-way below (a bank bit the write's lanes all share).
#pragma once

namespace pipegemm::kernels::skinny {

struct PartialCoord {
  int r, xr;  // W row within the CTA's ROWS, X row (< MAX_X)
};

// Accumulator i of the m16n8 block (xt, wb) of lane (g, t): X row 16 xt + g + 8 (i / 2), W row
// 8 wb + 2 t + i % 2.
constexpr PartialCoord fragment_coord(int xt, int wb, int i, int g, int t) {
  return {8 * wb + 2 * t + i % 2, 16 * xt + g + 8 * (i / 2)};
}

// Element e of the CTA's (ROWS, MAX_X) tile in store order: D's contiguous dimension fastest
// (W rows when X = A, D = (x, w); X rows otherwise).
template <int ROWS, int MAX_X>
constexpr PartialCoord store_coord(int e, bool x_is_a) {
  return x_is_a ? PartialCoord{e % ROWS, e / ROWS} : PartialCoord{e / MAX_X, e % MAX_X};
}

constexpr int log2_of(int v) { return v <= 1 ? 0 : 1 + log2_of(v / 2); }

// The word of (r, xr) in a warp's block of ROWS * MAX_X floats (a bijection onto it).
template <int MAX_X>
constexpr int partial_index(int r, int xr) {
  static_assert(MAX_X == 8 || MAX_X == 16 || MAX_X == 32, "a power of two that divides 32 banks");
  constexpr int kBits = log2_of(MAX_X);
  constexpr int kRowsPerLine = log2_of(32 / MAX_X);  // log2 of rows sharing a 32-bank line
  constexpr int kRot = (2 + kRowsPerLine) % kBits;   // r's bit 1 -> the column's bit 3
  const int q = (r >> kRowsPerLine) & (MAX_X - 1);
  const int s = kRot == 0 ? q : ((q << kRot) | (q >> (kBits - kRot))) & (MAX_X - 1);
  return r * MAX_X + (xr ^ s);
}

}  // namespace pipegemm::kernels::skinny
