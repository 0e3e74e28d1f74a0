// GPU tests skip themselves, and say so, on a machine without a usable CUDA device (a driverless machine
// answers cudaGetDeviceCount with an error; cuda_device_count() reports that as 0).
#pragma once

#include <gtest/gtest.h>

#include "kernels/backend.hpp"

#define SKIP_WITHOUT_GPU() \
  if (::kempe::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine"
