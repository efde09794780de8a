// Every registered GPU method × image sizes × sigmas × borders × formats against the float64
// reference, each with the accuracy bound the method itself promises (accuracy_sweep.cpp).
#include <gtest/gtest.h>

#include <tuple>

#include "accuracy_sweep.hpp"

namespace gausslab::gpu_test {
namespace {

// Parameters: the image case (outer, so the methods of one case share its reference) and the method.
class GpuAccuracy : public GpuTest, public ::testing::WithParamInterface<std::tuple<ImageCase, std::string>> {};

TEST_P(GpuAccuracy, MatchesTheFloat64ReferenceWithinItsBound) {
  const auto& [image_case, method_id] = GetParam();
  const std::unique_ptr<Method> method = create_method(method_id);
  const SweepCounts counts = sweep_case(*method, image_case, stream());
  RecordProperty("ran", counts.ran);
  RecordProperty("refused", counts.refused);
}

std::string param_name(const ::testing::TestParamInfo<GpuAccuracy::ParamType>& info) {
  return std::get<0>(info.param).name + "__" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(Methods, GpuAccuracy,
                         ::testing::Combine(::testing::ValuesIn(accuracy_cases()), ::testing::ValuesIn(gpu_method_ids())),
                         param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuAccuracy);

}  // namespace
}  // namespace gausslab::gpu_test
