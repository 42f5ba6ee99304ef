// setmaxnreg (sm_90a): a warpgroup hands registers back to the SM's pool (dec) or takes them
// (inc). Takes effect only when the kernel has a register cap at entry
// (__launch_bounds__(threads, 1)) and every warp of the warpgroup executes the same one;
// ptxas says so (C7508) when it ignores it. REGS is a multiple of 8 in [24, 256].
#pragma once

namespace pipegemm::arch {

template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(REGS >= 24 && REGS <= 256 && REGS % 8 == 0, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}

template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(REGS >= 24 && REGS <= 256 && REGS % 8 == 0, "setmaxnreg takes a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

}  // namespace pipegemm::arch
