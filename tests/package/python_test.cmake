# ctest: `pip install .` into the project's venv (.venv, made by scripts/setup.sh with
# scikit-build-core and nanobind), linking the package the consumer test installed, then the
# Python tests (python/tests: the GPU ones skip with their reason without torch or a GPU).
#   -DSOURCE_DIR=<pipegemm source> -DPREFIX=<installed pipegemm>
set(py "${SOURCE_DIR}/.venv/bin/python3")
if(NOT EXISTS "${py}")
  message(FATAL_ERROR "no ${py}: run scripts/setup.sh (it makes the project's venv)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env "CMAKE_PREFIX_PATH=${PREFIX}"
                        "${py}" -m pip install --no-build-isolation --no-deps --disable-pip-version-check -q "${SOURCE_DIR}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install . failed (${rc})")
endif()
# From outside the source tree, so that `import pipegemm` is the installed package.
execute_process(COMMAND "${py}" -c "import pipegemm; print('pipegemm', pipegemm.__version__, len(pipegemm.variants()), 'variants')"
                WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import pipegemm failed after pip install (${rc})")
endif()
# The extension exports its entry point only (python/src/exports.map): anything else would
# interpose on torch's symbols when pipegemm is imported first.
execute_process(COMMAND "${py}" -c "import pipegemm._pipegemm as m; print(m.__file__, end='')"
                WORKING_DIRECTORY "${PREFIX}" OUTPUT_VARIABLE so RESULT_VARIABLE rc)
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" -D --defined-only "${so}" OUTPUT_VARIABLE syms RESULT_VARIABLE rc2)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "could not list the symbols of the extension (${so})")
endif()
string(REGEX REPLACE "[^\n]* (PyInit__pipegemm|_edata|_end|__bss_start|_init|_fini)\n" "" extra "${syms}")
if(NOT extra STREQUAL "")
  message(FATAL_ERROR "the extension exports more than PyInit__pipegemm:\n${extra}")
endif()
execute_process(COMMAND "${py}" -m unittest discover -s "${SOURCE_DIR}/python/tests" -t "${SOURCE_DIR}/python/tests" -v
                WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "python tests failed (${rc})")
endif()
