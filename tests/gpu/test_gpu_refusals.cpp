// Refusals are decided up front and need no device: unsupported_reason never touches the GPU, and
// prepare() throws std::invalid_argument with the same reason before it allocates anything. These
// tests therefore also run where there is no CUDA device (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <cctype>

#include "gausslab/cuda/registry.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// True when the reason names a number and what it costs or exceeds.
bool names_the_cost(const std::string& reason) {
  const std::string text = lower(reason);
  const bool has_number = std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  bool has_cost_word = false;
  for (const char* word : {"multiply", "cost", "taps", "operation", "radius", "constant memory", "second", "minute",
                           "slow", "flop", "mad"})
    has_cost_word = has_cost_word || text.find(word) != std::string::npos;
  return has_number && has_cost_word;
}

TEST(GpuRefusals, Naive2dRefusesSigma200On4096SquaredNamingTheCost) {
  ASSERT_NE(find_method("naive_2d"), nullptr) << "no naive_2d in the registry";
  const std::unique_ptr<Method> method = create_method("naive_2d");
  FilterProblem problem{4096, 4096, PixelFormat::Rgba8, {}};
  problem.params.sigma = 200.0;  // radius 800: 1601² = 2.6 million multiply-adds per pixel and channel
  const std::string reason = method->unsupported_reason(problem);
  ASSERT_FALSE(reason.empty()) << "naive_2d accepts sigma 200 on 4096x4096 (2.6 million multiply-adds per pixel "
                                  "and channel, about 1.7e14 in all): it should refuse that up front";
  EXPECT_TRUE(names_the_cost(reason)) << "the reason should name the cost or the limit with its number: '" << reason
                                      << "'";
  expect_refused_up_front(*method, problem, reason, "naive_2d, rgba8 4096x4096, sigma 200");

  FilterProblem textbook{1920, 1080, PixelFormat::Rgba8, {}};
  textbook.params.sigma = 2.0;  // radius 8: 289 taps, the case a naive 2D kernel is for
  EXPECT_EQ(method->unsupported_reason(textbook), "") << "naive_2d refuses its textbook case, sigma 2 on 1920x1080";
}

class GpuRefusalsPerMethod : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuRefusalsPerMethod, RefusalsAreStableAndPrepareAgrees) {
  const std::unique_ptr<Method> method = create_method(GetParam());
  int refused = 0, accepted = 0;
  for (const auto& [width, height] : {std::pair{1, 1}, {17, 4099}, {4096, 4096}, {65536, 16384}})
    for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
      for (const double sigma : {0.1, 2.0, 200.0})
        for (const BorderMode border : kAllBorderModes) {
          FilterProblem problem{width, height, format, {}};
          problem.params.sigma = sigma;
          problem.params.border = border;
          const std::string reason = method->unsupported_reason(problem);
          EXPECT_EQ(method->unsupported_reason(problem), reason) << where(GetParam(), problem) << ": asked twice";
          if (reason.empty()) {
            ++accepted;
            continue;
          }
          ++refused;
          EXPECT_GT(reason.size(), 10u) << where(GetParam(), problem) << ": reason '" << reason << "' says too little";
          expect_refused_up_front(*method, problem, reason, where(GetParam(), problem));
        }
  std::cout << "[ REFUSED  ] " << GetParam() << ": " << refused << " of " << refused + accepted
            << " sample problems refused up front\n";
}

INSTANTIATE_TEST_SUITE_P(Methods, GpuRefusalsPerMethod, ::testing::ValuesIn(gpu_method_ids()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuRefusalsPerMethod);

}  // namespace
}  // namespace gausslab::gpu_test
