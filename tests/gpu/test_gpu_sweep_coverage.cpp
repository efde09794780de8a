// Every registered GPU method is in the GPU sweep: the accuracy sweep and the behaviour tests are
// instantiated from the registry (gpu_method_ids), so a new method needs no entry of its own; this
// test checks the instantiated test list against the registry, and fails when a method is missing
// from it (a narrowed id list, a method left out of an instantiation). It needs no device.
// (The CPU side: MethodCoverage in tests/cpu checks every method's CPU model tests.)
#include <gtest/gtest.h>

#include <string>

#include "gausslab/cuda/registry.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Tests of the parameterised suite `suite` whose name ends with `suffix`.
int tests_ending_with(const std::string& suite, const std::string& suffix) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  int count = 0;
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& candidate = *unit.GetTestSuite(i);
    if (candidate.name() != suite) continue;
    for (int j = 0; j < candidate.total_test_count(); ++j)
      if (ends_with(candidate.GetTestInfo(j)->name(), suffix)) ++count;
  }
  return count;
}

TEST(GpuSweep, EveryRegisteredGpuMethodIsSwept) {
  int gpu_methods = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda) continue;
    ++gpu_methods;
    const std::string& id = entry.info.id;
    EXPECT_GT(tests_ending_with("Methods/GpuAccuracy", "__" + id), 0)
        << "registered GPU method '" << id << "' has no case in the accuracy sweep (test_gpu_accuracy.cpp)";
    EXPECT_GT(tests_ending_with("Methods/GpuMethodBehaviour", "/" + id), 0)
        << "registered GPU method '" << id << "' has no behaviour tests (test_gpu_behaviour.cpp)";
    EXPECT_GT(tests_ending_with("Methods/GpuRefusalsPerMethod", "/" + id), 0)
        << "registered GPU method '" << id << "' has no refusal tests (test_gpu_refusals.cpp)";
  }
  EXPECT_GT(gpu_methods, 0) << "the registry has no GPU method";
}

}  // namespace
}  // namespace gausslab::gpu_test
