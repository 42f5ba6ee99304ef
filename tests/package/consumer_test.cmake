# ctest: install this build into a fresh prefix, build examples/consumer against it with
# find_package(pipegemm CONFIG) -- every installed header on its own and a kernel composed from the
# installed collectives, with this build's CUDA compiler and no CuTe -- and run it: gemm_api exits 0
# with a correct result on a GPU and 3 ("no GPU memory") without one, variant_table 0 (a table
# without teaching variants); anything else fails the test.
#   -DBUILD_DIR=<this build> -DSOURCE_DIR=<pipegemm source> -DWORK=<scratch folder> -DGENERATOR=<gen>
#   -DCUDA_COMPILER=<nvcc>
file(REMOVE_RECURSE "${WORK}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK}/prefix")
step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK}/build" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${WORK}/prefix" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
step(${CMAKE_COMMAND} --build "${WORK}/build")
execute_process(COMMAND "${WORK}/build/gemm_api" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "gemm_api (exit ${rc}): ${out}${err}")
if(NOT (rc EQUAL 0 OR rc EQUAL 3))
  message(FATAL_ERROR "the consumer built against the installed package failed at run time (exit ${rc})")
endif()
step("${WORK}/build/variant_table")
foreach(f include/pipegemm/pipegemm.hpp include/pipegemm/sm90/gemm.cuh bin/pipegemm)
  if(NOT EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
file(GLOB_RECURSE config "${WORK}/prefix/*/pipegemmConfig.cmake")
if(NOT config)
  message(FATAL_ERROR "the install has no pipegemmConfig.cmake")
endif()
foreach(f include/pipegemm/kernels/k4_multistage/kernel.cuh include/cute)
  if(EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "the install has ${f}: the CuTe-written kernels stay in the tree")
  endif()
endforeach()
