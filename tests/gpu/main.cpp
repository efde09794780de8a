// gausslab_gpu_tests: prints where it runs (device, quick subset or not) before the tests and a
// per-method summary after them. Without a CUDA device every test that needs one is skipped with
// the reason; the refusal tests, which need none, still run.
#include <gtest/gtest.h>

#include <exception>
#include <iostream>

#include "gausslab/cuda/device.hpp"
#include "gpu_test_support.hpp"

namespace {

class GpuSuiteReport : public ::testing::Environment {
 public:
  void SetUp() override {
    using namespace gausslab;
    const CudaDeviceStatus& status = cuda_device_status();
    std::cout << "gausslab GPU tests on " << describe(status) << "\n";
    if (!status.available) std::cout << "Every test that needs a CUDA device is skipped (reason above).\n";
    std::cout << (gpu_test::quick_mode() ? "Quick subset (GAUSSLAB_GPU_TESTS_QUICK): small sizes, few sigmas.\n"
                                         : "Full sweep (GAUSSLAB_GPU_TESTS_QUICK=1 runs a small subset).\n");
    if (!gpu_test::sigma_override().empty()) {
      std::cout << "Sigmas from GAUSSLAB_GPU_TESTS_SIGMAS:";
      for (double sigma : gpu_test::sigma_override()) std::cout << ' ' << sigma;
      std::cout << "\n";
    }
  }
  void TearDown() override { gausslab::gpu_test::print_summary(); }
};

}  // namespace

int main(int argc, char** argv) {
  try {
    gausslab::gpu_test::sigma_override();  // a bad list is reported here, before any test is made
  } catch (const std::exception& error) {
    std::cerr << "gausslab_gpu_tests: " << error.what() << "\n";
    return 2;
  }
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new GpuSuiteReport);  // gtest owns it
  return RUN_ALL_TESTS();
}
