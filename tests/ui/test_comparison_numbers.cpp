// The comparison's workers (app/): the A-vs-B numbers over the whole image against a direct
// computation in the test (and 0 for A = B), the exact Gaussian with its cache, and the CPU slot
// runner. Without a CUDA device the numbers are reduced on the CPU; the GPU reduction's steps are
// tested on the CPU in tests/cpu/test_image_difference.cpp and run for real in the GPU stage.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "comparison/comparison_numbers.hpp"
#include "comparison/cpu_slot_runner.hpp"
#include "comparison/exact_reference.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {
namespace {

int method_index(const std::string& id) {
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (registry[i].info.id == id) return static_cast<int>(i);
  return -1;
}

// The method's float path on each channel: what the viewer calls the unrounded result.
std::vector<double> unrounded(const std::string& id, const ImageRgba8& picture, const FilterParams& params) {
  std::unique_ptr<Method> method = method_registry()[static_cast<std::size_t>(method_index(id))].create();
  const int w = picture.width(), h = picture.height();
  std::vector<double> out(static_cast<std::size_t>(w) * h * 4);
  ImageF32 plane(w, h), result(w, h);
  for (int c = 0; c < 4; ++c) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) plane.at(x, y) = static_cast<float>(channel_value(picture.view(), x, y, c));
    run_on_host(*method, plane.view(), result.view(), params);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) out[(static_cast<std::size_t>(y) * w + x) * 4 + c] = result.at(x, y);
  }
  return out;
}

ComparisonNumbers numbers_for(NumbersWorker& worker, const NumbersKey& key, std::shared_ptr<const ImageRgba8> picture,
                              std::shared_ptr<const ExactResult> exact = nullptr) {
  worker.submit(key, std::move(picture), std::move(exact));
  worker.wait_idle();
  std::optional<ComparisonNumbers> numbers = worker.latest();
  EXPECT_TRUE(numbers.has_value());
  EXPECT_TRUE(numbers->key == key);
  return *numbers;
}

struct Fixture {
  std::shared_ptr<const ImageRgba8> picture = std::make_shared<const ImageRgba8>(make_random_rgba8(37, 29, 11));
  FilterParams params;
  Fixture() {
    params.sigma = 1.7;
    params.border = BorderMode::Mirror;
  }
  SlotSetting setting(int method) const { return SlotSetting{1, method, params}; }
};

TEST(ComparisonNumbers, AAgainstBMatchesADirectComputationOverTheWholeImage) {
  Fixture f;
  NumbersWorker worker(false);
  const int separable = method_index("cpu_separable");
  const ComparisonNumbers numbers =
      numbers_for(worker, NumbersKey{f.setting(separable), f.setting(kOriginalPicture), false}, f.picture);
  ASSERT_TRUE(numbers.a_vs_b.has_value()) << numbers.error;
  EXPECT_FALSE(numbers.on_gpu);

  const std::vector<double> a = unrounded("cpu_separable", *f.picture, f.params);
  double max_abs = -1, sum = 0;
  int at = -1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int pixel = static_cast<int>(i / 4), c = static_cast<int>(i % 4);
    const double d = std::abs(a[i] - channel_value(f.picture->view(), pixel % 37, pixel / 37, c));
    sum += d;
    if (d > max_abs) {
      max_abs = d;
      at = static_cast<int>(i);
    }
  }
  const DifferenceFigures& u = numbers.a_vs_b->unrounded;
  EXPECT_DOUBLE_EQ(u.max_abs, max_abs);
  EXPECT_EQ(u.max_x, (at / 4) % 37);
  EXPECT_EQ(u.max_y, (at / 4) / 37);
  EXPECT_EQ(u.max_channel, at % 4);
  EXPECT_NEAR(u.mean_abs, sum / a.size(), 1e-9);
  EXPECT_GT(u.max_abs, 1.0);  // a blur against the picture: a real difference
  // The inspector's values are the same unrounded values.
  ASSERT_TRUE(numbers.values_a);
  EXPECT_DOUBLE_EQ(numbers.values_a->value(5, 7, 2), a[(7 * 37 + 5) * 4 + 2]);
  EXPECT_DOUBLE_EQ(numbers.values_b->value(5, 7, 2), f.picture->at(5, 7).b);
}

TEST(ComparisonNumbers, ASlotAgainstItselfIsExactlyZero) {
  Fixture f;
  NumbersWorker worker(false);
  const int openmp = method_index("cpu_openmp");
  const ComparisonNumbers numbers = numbers_for(worker, NumbersKey{f.setting(openmp), f.setting(openmp), false}, f.picture);
  ASSERT_TRUE(numbers.a_vs_b.has_value());
  EXPECT_TRUE(numbers.a_vs_b->identical());
  EXPECT_EQ(numbers.a_vs_b->unrounded.max_abs, 0.0);
  EXPECT_EQ(numbers.a_vs_b->rounded.max_abs, 0.0);
  EXPECT_TRUE(std::isinf(numbers.a_vs_b->unrounded.psnr_db));
  const ComparisonNumbers originals =
      numbers_for(worker, NumbersKey{f.setting(kOriginalPicture), f.setting(kOriginalPicture), false}, f.picture);
  EXPECT_TRUE(originals.a_vs_b->identical());
}

TEST(ComparisonNumbers, EachSlotAgainstTheExactGaussian) {
  Fixture f;
  ExactReference exact;
  const ExactKey key{1, f.params};
  exact.request(key, f.picture);
  exact.wait_idle();
  std::shared_ptr<const ExactResult> result = exact.find(key);
  ASSERT_TRUE(result) << exact.error();
  const std::vector<double> reference = reference_gaussian(f.picture->view(), f.params);
  EXPECT_EQ(result->values, reference);  // band by band, the same numbers as in one go
  for (std::size_t i = 0; i < reference.size(); ++i)
    ASSERT_EQ((&result->rounded.data()->r)[i], static_cast<std::uint8_t>(std::floor(std::clamp(reference[i], 0.0, 255.0) + 0.5)));

  NumbersWorker worker(false);
  const int separable = method_index("cpu_separable");
  const ComparisonNumbers numbers =
      numbers_for(worker, NumbersKey{f.setting(separable), f.setting(kExactGaussian), true}, f.picture, result);
  ASSERT_TRUE(numbers.a_vs_exact.has_value()) << numbers.error;
  const std::vector<double> a = unrounded("cpu_separable", *f.picture, f.params);
  double max_abs = 0;
  for (std::size_t i = 0; i < a.size(); ++i) max_abs = std::max(max_abs, std::abs(a[i] - reference[i]));
  EXPECT_DOUBLE_EQ(numbers.a_vs_exact->unrounded.max_abs, max_abs);
  EXPECT_LT(max_abs, 1e-3);  // float against float64: tiny, and not zero
  EXPECT_GT(max_abs, 0.0);
  // The 8-bit result against the exact values: within the promised half level (plus float slack).
  EXPECT_LE(numbers.a_vs_exact->rounded.max_abs, 0.51);
  // B shows the exact Gaussian itself: no B-vs-exact figure, and A vs B rounds both.
  EXPECT_FALSE(numbers.b_vs_exact.has_value());
  ASSERT_TRUE(numbers.a_vs_b.has_value());
  EXPECT_DOUBLE_EQ(numbers.a_vs_b->unrounded.max_abs, max_abs);
}

TEST(ComparisonNumbers, TheExactGaussianIsCachedPerSetting) {
  Fixture f;
  ExactReference exact;
  const ExactKey key{1, f.params};
  EXPECT_EQ(exact.find(key), nullptr);
  exact.request(key, f.picture);
  exact.wait_idle();
  std::shared_ptr<const ExactResult> first = exact.find(key);
  ASSERT_TRUE(first);
  exact.request(key, f.picture);  // cached: not computed again
  EXPECT_FALSE(exact.busy());
  EXPECT_EQ(exact.find(key), first);
  FilterParams other = f.params;
  other.border = BorderMode::Wrap;
  EXPECT_EQ(exact.find(ExactKey{1, other}), nullptr);
  EXPECT_EQ(exact.find(ExactKey{2, f.params}), nullptr);  // another picture
}

TEST(ComparisonNumbers, TheInspectorWritesASubLevelValueThatZeroDecimalsWouldHide) {
  EXPECT_EQ(levels_text(127.38512, false), "127.385");
  EXPECT_EQ(levels_text(-0.25, true), "-0.250");
  EXPECT_EQ(levels_text(0.0, true), "+0.000");
  EXPECT_EQ(levels_text(8.1234e-5, true), "+8.12e-05");  // was "+0.000": the exact-Gaussian error
  EXPECT_EQ(levels_text(-4.5e-7, false), "-4.50e-07");
}

TEST(CpuSlotRunner, RunsTheMethodOffTheCallersThreadAndHandsTheResultOver) {
  Fixture f;
  CpuSlotRunner runner;
  const int openmp = method_index("cpu_openmp");
  runner.submit(1, f.setting(openmp), f.picture, 3);
  runner.wait_idle();
  EXPECT_FALSE(runner.busy(1));
  EXPECT_TRUE(runner.result_waiting(1));  // finished, not yet taken: the viewer does not run it again
  EXPECT_FALSE(runner.result_waiting(0));
  std::vector<CpuRunResult> results = runner.take_results();
  EXPECT_FALSE(runner.result_waiting(1));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].slot, 1);
  EXPECT_TRUE(results[0].setting == f.setting(openmp));
  EXPECT_EQ(results[0].run_ms.size(), 3u);
  ImageRgba8 expected(f.picture->width(), f.picture->height());
  cpu_gaussian_filter(f.picture->view(), expected.view(), f.params, CpuThreading::OpenMP);
  EXPECT_EQ(results[0].image.pixels(), expected.pixels());
  EXPECT_TRUE(runner.take_results().empty());
}

}  // namespace
}  // namespace gausslab
