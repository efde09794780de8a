#pragma once
// The body of the accuracy sweep, apart from the test that runs it, so that the harness itself is
// tested without a device (test_gpu_harness.cpp runs it with CPU and deliberately wrong methods).
#include <cuda_runtime.h>

#include "gausslab/cuda/method.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {

struct SweepCounts {
  int ran = 0, failed = 0, refused = 0;
};

// Runs `method` on every sigma × border of the image case through run_on_host (poisoned output):
// a refused combination must be refused up front (prepare throws with the reason) and is printed;
// an accepted one must meet the method's own accuracy bound with no NaN. Failures are reported
// with EXPECT (the sweep goes on); every combination is recorded for the summary.
SweepCounts sweep_case(Method& method, const ImageCase& image_case, cudaStream_t stream);

}  // namespace gausslab::gpu_test
