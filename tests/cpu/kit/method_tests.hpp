#pragma once
// Which CPU tests test which registered method. Every method's own code runs on the CPU in a test
// (the kernels' per-thread code in a model, or the CPU method itself) against the plain loop or the
// float64 reference; a model test file declares that with
//   GAUSSLAB_METHOD_TESTS("separable_shared", SeparableSharedModel);
// at namespace scope (the gtest suite name, unquoted). MethodCoverage (test_method_coverage.cpp)
// fails for a registered method that no file declares, and for a declared suite that has no tests.
#include <string>
#include <vector>

namespace gausslab::test {

struct MethodTests {
  std::string method_id;
  std::string suite;  // a gtest test suite in this executable
};

// Records a declaration; returns true (for the static variable the macro defines).
bool declare_method_tests(const char* method_id, const char* suite);
// Every declaration of this executable, in no particular order.
const std::vector<MethodTests>& declared_method_tests();

}  // namespace gausslab::test

#define GAUSSLAB_METHOD_TESTS_NAME2(line) gausslab_method_tests_##line
#define GAUSSLAB_METHOD_TESTS_NAME(line) GAUSSLAB_METHOD_TESTS_NAME2(line)
#define GAUSSLAB_METHOD_TESTS(method_id, suite) \
  [[maybe_unused]] static const bool GAUSSLAB_METHOD_TESTS_NAME(__LINE__) = \
      ::gausslab::test::declare_method_tests(method_id, #suite)
