# pipegemm_hopper_ptxas_checks(<target>)
#
# Makes ptxas warnings fatal for the CUDA sources of <target> when they are compiled for sm_90a.
# The Hopper path is only fast when ptxas keeps wgmma asynchronous and honours setmaxnreg; when it
# cannot, it says so with a warning and still emits (slow) code:
#   C7510-C7520  "wgmma.mma_async instructions are serialized due to ..."
#   C7508        "setmaxnreg ignored; unable to determine register count at entry"
# The machine code cannot show these warnings afterwards (`pipegemm sass` only sees their effect,
# e.g. a WARPGROUP.DEPBAR after every HGMMA), so the build has to refuse them.
#
# -Werror on ptxas turns every ptxas warning into an error, which covers both families whatever
# their exact number in a given release; spill warnings (-warn-spills) become errors as well, which
# is what we want for a Hopper kernel too. Only applied when 90a is among CMAKE_CUDA_ARCHITECTURES
# (or the target's CUDA_ARCHITECTURES); the flag is per target, so sm_80-only targets are untouched.
function(pipegemm_hopper_ptxas_checks target)
  get_target_property(_archs ${target} CUDA_ARCHITECTURES)
  if(NOT _archs)
    set(_archs ${CMAKE_CUDA_ARCHITECTURES})
  endif()
  if(NOT "90a" IN_LIST _archs AND NOT "90a-real" IN_LIST _archs)
    message(STATUS "pipegemm: ${target}: no sm_90a in '${_archs}', Hopper ptxas checks not applied")
    return()
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-Werror>)
  message(STATUS "pipegemm: ${target}: ptxas warnings are errors (wgmma serialization C7510-C7520, setmaxnreg C7508)")
endfunction()
