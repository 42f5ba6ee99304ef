# ctest: install this build into a fresh prefix, build examples/consumer against it with
# find_package(pipegemm CONFIG), run it. The example exits 0 with a correct result on a GPU and
# 3 ("no GPU memory") without one; anything else fails the test.
#   -DBUILD_DIR=<this build> -DSOURCE_DIR=<pipegemm source> -DWORK=<scratch folder> -DGENERATOR=<gen>
file(REMOVE_RECURSE "${WORK}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK}/prefix")
step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK}/build" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${WORK}/prefix" -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build "${WORK}/build")
execute_process(COMMAND "${WORK}/build/gemm_api" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "gemm_api (exit ${rc}): ${out}${err}")
if(NOT (rc EQUAL 0 OR rc EQUAL 3))
  message(FATAL_ERROR "the consumer built against the installed package failed at run time (exit ${rc})")
endif()
foreach(f include/pipegemm/pipegemm.hpp bin/pipegemm)
  if(NOT EXISTS "${WORK}/prefix/${f}")
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
file(GLOB_RECURSE config "${WORK}/prefix/*/pipegemmConfig.cmake")
if(NOT config)
  message(FATAL_ERROR "the install has no pipegemmConfig.cmake")
endif()
