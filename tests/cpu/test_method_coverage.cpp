// Every registered method is tested on the CPU: some test file declares the gtest suite that runs
// the method's own code (GAUSSLAB_METHOD_TESTS, kit/method_tests.hpp), and that suite has tests.
// (The GPU side: GpuSweep.EveryRegisteredGpuMethodIsSwept in tests/gpu checks the GPU sweep.)
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/halo_reads.hpp"
#include "gausslab/cuda/registry.hpp"
#include "kit/method_tests.hpp"

namespace gausslab {
namespace {

// Tests of `suite` in this executable that run (DISABLED_ ones do not count); -1 without the suite.
int enabled_tests_in(const std::string& suite) {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& candidate = *unit.GetTestSuite(i);
    if (candidate.name() != suite) continue;
    int enabled = 0;
    for (int j = 0; j < candidate.total_test_count(); ++j)
      if (std::string(candidate.GetTestInfo(j)->name()).rfind("DISABLED_", 0) != 0) ++enabled;
    return enabled;
  }
  return -1;
}

TEST(MethodCoverage, EveryRegisteredMethodHasCpuModelTests) {
  for (const MethodEntry& entry : method_registry()) {
    int suites = 0;
    for (const test::MethodTests& declared : test::declared_method_tests()) {
      if (declared.method_id != entry.info.id) continue;
      ++suites;
      const int tests = enabled_tests_in(declared.suite);
      EXPECT_GT(tests, 0) << declared.suite << ", declared as " << entry.info.id << "'s CPU model tests, "
                          << (tests < 0 ? "is not a test suite of this executable" : "has no enabled test");
    }
    EXPECT_GT(suites, 0) << "registered method '" << entry.info.id << "' has no CPU model test: run its per-thread "
                         << "code on the CPU against the plain loop or the float64 reference in "
                         << "tests/cpu/methods/ (README: Adding a method) and declare the suite with "
                         << "GAUSSLAB_METHOD_TESTS(\"" << entry.info.id << "\", Suite)";
  }
}

TEST(MethodCoverage, EveryDeclarationNamesARegisteredMethod) {
  for (const test::MethodTests& declared : test::declared_method_tests())
    EXPECT_NE(find_method(declared.method_id), nullptr)
        << declared.suite << " declares tests of '" << declared.method_id << "', which is not in the registry ("
        << method_id_list() << ")";
}

// The slicing plans a method's tiles core-only from its MethodInfo (no instance at hand), and the
// sliced run calls its HaloReads: the flag and the interface must agree for every method.
TEST(MethodCoverage, ComputesCoreFromHaloIsSetExactlyForTheMethodsWithHaloReads) {
  for (const MethodEntry& entry : method_registry()) {
    const std::unique_ptr<Method> method = entry.create();
    EXPECT_EQ(entry.info.computes_core_from_halo, halo_reads(*method) != nullptr) << entry.info.id;
    if (entry.info.computes_core_from_halo) {
      EXPECT_TRUE(entry.info.same_bytes_in_bands) << entry.info.id;
    }
  }
}

// Each bound is stated once, as the constant accuracy_bound() returns: MethodInfo::accuracy (the
// viewer's tooltip, the help texts) is made from it and names its numbers (accuracy_promise.hpp).
TEST(MethodCoverage, EveryMethodsAccuracyTextStatesTheBoundItReturns) {
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.id == "auto" || entry.info.id == "auto_exact") continue;  // its cap, not a bound of its own
    const std::unique_ptr<Method> method = entry.create();
    const std::string& text = entry.info.accuracy;
    // A bound may depend on sigma (recursive's ranges): the text names the widest, met at some sigma.
    bool relative_named = false, levels_named = false;
    for (const double sigma : {0.3, 2.0, 16.0}) {
      FilterProblem problem{64, 48, PixelFormat::F32, {}};
      problem.params.sigma = sigma;
      const AccuracyBound bound = method->accuracy_bound(problem);
      relative_named |= text.find(bound_number(bound.max_relative_error) + " of the peak") != std::string::npos;
      levels_named |= text.find(bound_number(bound.max_error_8bit) + " levels (8-bit)") != std::string::npos;
    }
    if (entry.info.formats.contains(PixelFormat::F32)) {
      EXPECT_TRUE(relative_named) << entry.info.id << ": " << text;
    }
    if (entry.info.formats.contains(PixelFormat::Rgba8)) {
      EXPECT_TRUE(levels_named) << entry.info.id << ": " << text;
    }
  }
}

}  // namespace
}  // namespace gausslab
