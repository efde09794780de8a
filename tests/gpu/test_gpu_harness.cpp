// The GPU suite's own machinery, tested without a device: the sweep passes a correct method,
// catches deliberately wrong ones (wrong sigma, an unwritten row, a refusal that prepare ignores),
// lists refusals, and compares crops that cover corners, edges and centre. These run on CI too, so
// that the H100 log the lead reads comes from a harness known to fail when it should.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "accuracy_sweep.hpp"
#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/reference.hpp"

namespace gausslab::gpu_test {
namespace {

enum class Flaw { None, WrongSigma, UnwrittenLastRow, RefusesLargeRadius, PrepareIgnoresRefusal };

// A host method (run_on_host runs it in place) built on the CPU filter, with one deliberate flaw.
class FlawedHostMethod final : public Method {
 public:
  explicit FlawedHostMethod(Flaw flaw)
      : info_{"harness_check", "harness check", "CPU filter with a deliberate flaw", "", Backend::Cpu}, flaw_(flaw) {}

  const MethodInfo& info() const override { return info_; }

  std::string unsupported_reason(const FilterProblem& problem) const override {
    if (std::string invalid = validate(problem); !invalid.empty()) return invalid;
    const bool limited = flaw_ == Flaw::RefusesLargeRadius || flaw_ == Flaw::PrepareIgnoresRefusal;
    if (limited && problem.params.radius() > 20)
      return "radius " + std::to_string(problem.params.radius()) + " exceeds the 20 this test method holds";
    return {};
  }

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {1e-5, 0.51}; }

  void prepare(const FilterProblem& problem) override {
    const std::string reason = unsupported_reason(problem);
    if (!reason.empty() && flaw_ != Flaw::PrepareIgnoresRefusal) throw std::invalid_argument(info_.id + ": " + reason);
    prepared_ = problem;
  }

  void run(const ConstImageView& src, const ImageView& dst, StageTimer*, cudaStream_t) override {
    check_views(src, dst);
    FilterParams params = prepared_.params;
    if (flaw_ == Flaw::WrongSigma) params.sigma *= 1.2;
    cpu_gaussian_filter(src, dst, params, CpuThreading::OpenMP);
    if (flaw_ == Flaw::UnwrittenLastRow)  // what the poison leaves: NaN for f32, 255 for rgba8
      std::memset(dst.row<unsigned char>(dst.height - 1), 0xFF, dst.width * bytes_per_pixel(dst.format));
  }

 private:
  MethodInfo info_;
  Flaw flaw_;
};

// The failure messages `body` reports, intercepted so that they do not fail this test.
std::vector<std::string> failures_of(const std::function<void()>& body) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    body();
  }
  std::vector<std::string> messages;
  for (int i = 0; i < results.size(); ++i)
    if (results.GetTestPartResult(i).failed()) messages.push_back(results.GetTestPartResult(i).message());
  return messages;
}

bool all_contain(const std::vector<std::string>& messages, const std::string& part) {
  for (const std::string& message : messages)
    if (message.find(part) == std::string::npos) return false;
  return !messages.empty();
}

ImageCase small_case(PixelFormat format, std::vector<double> sigmas) {
  const char* name = format == PixelFormat::F32 ? "f32_random_13x17" : "rgba8_random_13x17";
  return {name, format, 13, 17, "", std::move(sigmas)};
}

TEST(GpuHarness, CorrectMethodPassesEveryCombination) {
  FlawedHostMethod method(Flaw::None);
  for (const ImageCase& image_case :
       {small_case(PixelFormat::Rgba8, {0.1, 0.5, 2.5, 33.0, 200.0}), small_case(PixelFormat::F32, {0.1, 1.0, 8.0, 200.0}),
        ImageCase{"f32_random_4099x17", PixelFormat::F32, 4099, 17, "", {200.0}}}) {
    SweepCounts counts;
    const std::vector<std::string> failures = failures_of([&] { counts = sweep_case(method, image_case, nullptr); });
    EXPECT_TRUE(failures.empty()) << image_case.name << ": " << (failures.empty() ? "" : failures.front());
    EXPECT_EQ(counts.ran, static_cast<int>(image_case.sigmas.size() * kAllBorderModes.size())) << image_case.name;
    EXPECT_EQ(counts.failed, 0) << image_case.name;
    EXPECT_EQ(counts.refused, 0) << image_case.name;
  }
}

TEST(GpuHarness, CorrectMethodPassesOnCropsAndUnwrittenRowsAreCaughtThere) {
  // Crops are what big images get; a lowered budget makes this small case use them too.
  const double saved_budget = full_reference_max_work();
  full_reference_max_work() = 1e5;
  const ImageCase crops{"rgba8_random_300x200", PixelFormat::Rgba8, 300, 200, "", {5.0}};
  EXPECT_EQ(comparison_regions(300, 200, PixelFormat::Rgba8, 20).size(), 9u) << "this case should use crops";
  FlawedHostMethod method(Flaw::None);
  std::vector<std::string> failures = failures_of([&] { sweep_case(method, crops, nullptr); });
  EXPECT_TRUE(failures.empty()) << (failures.empty() ? "" : failures.front());

  FlawedHostMethod unwritten(Flaw::UnwrittenLastRow);
  failures = failures_of([&] { sweep_case(unwritten, crops, nullptr); });
  full_reference_max_work() = saved_budget;
  EXPECT_EQ(failures.size(), kAllBorderModes.size()) << "the bottom crops must catch an unwritten last row";
  EXPECT_TRUE(all_contain(failures, ", 199) channel")) << (failures.empty() ? "" : failures.front());
  EXPECT_TRUE(all_contain(failures, "crops at corners")) << (failures.empty() ? "" : failures.front());
}

TEST(GpuHarness, WrongSigmaIsCaughtInBothFormats) {
  FlawedHostMethod method(Flaw::WrongSigma);
  for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32}) {
    const std::vector<std::string> failures =
        failures_of([&] { sweep_case(method, small_case(format, {2.5}), nullptr); });
    EXPECT_EQ(failures.size(), kAllBorderModes.size()) << to_string(format);
    EXPECT_TRUE(all_contain(failures, "EXCEEDS bound")) << (failures.empty() ? "" : failures.front());
    EXPECT_TRUE(all_contain(failures, "harness_check, " + std::string(to_string(format)) + " 13x17"))
        << "messages must name method, format and size: " << (failures.empty() ? "" : failures.front());
    EXPECT_TRUE(all_contain(failures, "sigma 2.5")) << (failures.empty() ? "" : failures.front());
  }
}

TEST(GpuHarness, UnwrittenPixelsAreCaught) {
  FlawedHostMethod method(Flaw::UnwrittenLastRow);
  const std::vector<std::string> f32 = failures_of([&] { sweep_case(method, small_case(PixelFormat::F32, {1.0}), nullptr); });
  EXPECT_EQ(f32.size(), kAllBorderModes.size());
  EXPECT_TRUE(all_contain(f32, "13 NaN/inf values")) << (f32.empty() ? "" : f32.front());
  EXPECT_TRUE(all_contain(f32, "first NaN at pixel (0, 16)")) << (f32.empty() ? "" : f32.front());
  const std::vector<std::string> rgba8 =
      failures_of([&] { sweep_case(method, small_case(PixelFormat::Rgba8, {1.0}), nullptr); });
  EXPECT_EQ(rgba8.size(), kAllBorderModes.size());
  EXPECT_TRUE(all_contain(rgba8, ", 16) channel")) << (rgba8.empty() ? "" : rgba8.front());
}

TEST(GpuHarness, RefusalsAreCheckedAndListed) {
  FlawedHostMethod method(Flaw::RefusesLargeRadius);
  SweepCounts counts;
  ::testing::internal::CaptureStdout();
  const std::vector<std::string> failures =
      failures_of([&] { counts = sweep_case(method, small_case(PixelFormat::F32, {2.0, 8.0, 33.0}), nullptr); });
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(failures.empty()) << (failures.empty() ? "" : failures.front());
  EXPECT_EQ(counts.ran, 5);       // sigma 2: radius 8
  EXPECT_EQ(counts.refused, 10);  // sigma 8 and 33: radius 32 and 132
  // One line per distinct reason (the radius differs, so two lines here).
  EXPECT_NE(printed.find("[ REFUSED  ] harness_check on f32_random_13x17 at sigma 8: radius 32 exceeds"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("[ REFUSED  ] harness_check on f32_random_13x17 at sigma 33: radius 132 exceeds"),
            std::string::npos)
      << printed;
}

TEST(GpuHarness, PrepareThatIgnoresARefusalIsCaught) {
  FlawedHostMethod method(Flaw::PrepareIgnoresRefusal);
  std::vector<std::string> failures;
  ::testing::internal::CaptureStdout();
  failures = failures_of([&] { sweep_case(method, small_case(PixelFormat::Rgba8, {8.0}), nullptr); });
  ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(failures.size(), kAllBorderModes.size());
  EXPECT_TRUE(all_contain(failures, "but prepare() accepted the problem")) << (failures.empty() ? "" : failures.front());
}

TEST(GpuHarness, RegionsAreTheWholeImageOrCropsAtCornersEdgesAndCentre) {
  EXPECT_EQ(comparison_regions(1, 1, PixelFormat::Rgba8, 800).size(), 1u);
  EXPECT_EQ(comparison_regions(127, 61, PixelFormat::Rgba8, 800).size(), 1u);
  const std::vector<Rect> crops = comparison_regions(4096, 4096, PixelFormat::Rgba8, 800);
  ASSERT_EQ(crops.size(), 9u);
  bool top_left = false, bottom_right = false, centre = false;
  for (const Rect& r : crops) {
    EXPECT_TRUE(r.x >= 0 && r.y >= 0 && r.x + r.width <= 4096 && r.y + r.height <= 4096);
    top_left = top_left || (r.x == 0 && r.y == 0);
    bottom_right = bottom_right || (r.x + r.width == 4096 && r.y + r.height == 4096);
    centre = centre || (r.x < 2048 && r.x + r.width > 2048 && r.y < 2048 && r.y + r.height > 2048);
  }
  EXPECT_TRUE(top_left && bottom_right && centre);
  // A thin image: crops span its whole height.
  for (const Rect& r : comparison_regions(17, 4099, PixelFormat::Rgba8, 800)) EXPECT_EQ(r.width, 17);
}

TEST(GpuHarness, ComparisonNamesTheWorstPixel) {
  const ImageF32 src = make_random_f32(20, 10, 3);
  FilterParams params;
  params.sigma = 1.5;
  ImageF32 result(20, 10);
  cpu_gaussian_filter(src.view(), result.view(), params, CpuThreading::Single);
  const AccuracyBound bound{1e-5, 0.51};
  const std::vector<Rect> whole = {{0, 0, 20, 10}};
  const std::vector<std::vector<double>> reference = {reference_gaussian(src.view(), params)};
  EXPECT_TRUE(compare(result.view(), whole, reference, bound).passed());
  result.at(7, 4) += 0.01f;
  const Comparison off = compare(result.view(), whole, reference, bound);
  EXPECT_FALSE(off.passed());
  EXPECT_NE(off.describe().find("pixel (7, 4)"), std::string::npos) << off.describe();
  EXPECT_NE(off.describe().find("every pixel"), std::string::npos) << off.describe();
}

}  // namespace
}  // namespace gausslab::gpu_test
