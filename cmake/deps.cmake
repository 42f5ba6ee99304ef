# Where third-party code comes from (design.md "Where things come from"):
#   CuTe/CUTLASS : PyPI nvidia-cutlass==4.2.0.0 (headers only), or CUTLASS_DIR, or .deps/cutlass
#   CLI11, JSON  : Debian libcli11-dev / nlohmann-json3-dev, or .deps/include
#   GoogleTest   : Debian libgtest-dev, or .deps/googletest (sources)
find_package(Threads REQUIRED)

# The project's virtual environment (scripts/setup.sh makes .venv and installs the PyPI packages
# into it: a stock Debian's python3 is externally managed, PEP 668) is the Python asked first.
if(NOT Python3_EXECUTABLE AND EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python3")
  set(Python3_EXECUTABLE "${PROJECT_SOURCE_DIR}/.venv/bin/python3")
endif()

# --- CuTe / CUTLASS headers -------------------------------------------------------------------
set(CUTLASS_DIR "" CACHE PATH "CUTLASS source root (holds include/ and tools/util/include/)")
if(NOT CUTLASS_DIR)
  if(EXISTS "${PIPEGEMM_DEPS_DIR}/cutlass/include/cute")
    set(CUTLASS_DIR "${PIPEGEMM_DEPS_DIR}/cutlass")
  else()
    find_package(Python3 COMPONENTS Interpreter)
    if(Python3_FOUND)
      execute_process(
        COMMAND ${Python3_EXECUTABLE} -c
          "import cutlass_library,os;print(os.path.join(os.path.dirname(cutlass_library.__file__),'source'))"
        OUTPUT_VARIABLE _cutlass_src OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_cutlass_src AND EXISTS "${_cutlass_src}/include/cute")
        set(CUTLASS_DIR "${_cutlass_src}")
      endif()
    endif()
  endif()
endif()
if(NOT CUTLASS_DIR OR NOT EXISTS "${CUTLASS_DIR}/include/cute/tensor.hpp")
  message(FATAL_ERROR "CuTe/CUTLASS headers not found. Run scripts/setup.sh "
                      "(pip install --no-deps nvidia-cutlass==4.2.0.0) or pass -DCUTLASS_DIR=<root>.")
endif()
message(STATUS "pipegemm: CUTLASS_DIR=${CUTLASS_DIR}")
add_library(pipegemm_cutlass INTERFACE)
target_include_directories(pipegemm_cutlass SYSTEM INTERFACE
  "${CUTLASS_DIR}/include" "${CUTLASS_DIR}/tools/util/include")

# --- CLI11 (the CLI's only) / nlohmann-json (header-only) -------------------------------------
add_library(pipegemm_cli11 INTERFACE)
if(PIPEGEMM_BUILD_TOOLS)
  find_package(CLI11 CONFIG QUIET)
  if(CLI11_FOUND)
    target_link_libraries(pipegemm_cli11 INTERFACE CLI11::CLI11)
  elseif(EXISTS "${PIPEGEMM_DEPS_DIR}/include/CLI/CLI.hpp")
    target_include_directories(pipegemm_cli11 SYSTEM INTERFACE "${PIPEGEMM_DEPS_DIR}/include")
  else()
    message(FATAL_ERROR "CLI11 not found: apt-get install libcli11-dev (scripts/setup.sh)")
  endif()
endif()
add_library(pipegemm_json INTERFACE)
find_package(nlohmann_json CONFIG QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(pipegemm_json INTERFACE nlohmann_json::nlohmann_json)
elseif(EXISTS "${PIPEGEMM_DEPS_DIR}/include/nlohmann/json.hpp")
  target_include_directories(pipegemm_json SYSTEM INTERFACE "${PIPEGEMM_DEPS_DIR}/include")
else()
  message(FATAL_ERROR "nlohmann-json not found: apt-get install nlohmann-json3-dev (scripts/setup.sh)")
endif()

# --- cuobjdump (for `pipegemm sass`; PyPI nvidia-cuda-cuobjdump + nvidia-cuda-nvdisasm 13.x) ----
# Looked for in the CUDA toolkit's bin, python3's site-packages nvidia/cu*/bin, then PATH. Baked
# into the binary as its default; $PIPEGEMM_CUOBJDUMP overrides it at run time, PATH is the fallback.
set(_cuobjdump_hints "")
if(CMAKE_CUDA_COMPILER)
  get_filename_component(_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  list(APPEND _cuobjdump_hints "${_cuda_bin}")
endif()
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
      "import site,glob,os;print(';'.join(sorted({d for p in site.getsitepackages()+[site.getusersitepackages()] for d in glob.glob(os.path.join(p,'nvidia','cu*','bin'))}, reverse=True)))"
    OUTPUT_VARIABLE _py_nvidia_bins OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  list(APPEND _cuobjdump_hints ${_py_nvidia_bins})
endif()
find_program(PIPEGEMM_CUOBJDUMP cuobjdump HINTS ${_cuobjdump_hints}
             DOC "cuobjdump used by `pipegemm sass` (>= 13.0, < 14), with nvdisasm beside it")
if(PIPEGEMM_CUOBJDUMP)
  set(PIPEGEMM_CUOBJDUMP_FOUND "${PIPEGEMM_CUOBJDUMP}")
  get_filename_component(_cuobjdump_dir "${PIPEGEMM_CUOBJDUMP}" DIRECTORY)
  if(NOT EXISTS "${_cuobjdump_dir}/nvdisasm")
    find_program(_pipegemm_nvdisasm nvdisasm)
    if(NOT _pipegemm_nvdisasm)
      message(WARNING "cuobjdump found at ${PIPEGEMM_CUOBJDUMP} but no nvdisasm beside it or on PATH: "
                      "`pipegemm sass` cannot disassemble. pip install 'nvidia-cuda-nvdisasm>=13.0,<14'")
    endif()
  endif()
  message(STATUS "pipegemm: cuobjdump=${PIPEGEMM_CUOBJDUMP}")
else()
  set(PIPEGEMM_CUOBJDUMP_FOUND "")
  message(STATUS "pipegemm: cuobjdump not found; `pipegemm sass` will look on PATH at run time "
                 "(pip install 'nvidia-cuda-cuobjdump>=13.0,<14' 'nvidia-cuda-nvdisasm>=13.0,<14')")
endif()
