// What every GPU test file starts with: a test skips with the reason where there is no GPU.
#pragma once

#include <gtest/gtest.h>

#include "pipegemm/device.hpp"

#define REQUIRE_GPU()                                                                                     \
  do {                                                                                                    \
    if (!::pipegemm::device_info().present) GTEST_SKIP() << "no GPU: " << ::pipegemm::device_info().why_absent; \
  } while (0)
