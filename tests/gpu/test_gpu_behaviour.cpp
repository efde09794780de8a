// How each GPU method behaves beyond one accurate run: determinism, independent instances on one
// stream, pitched views with rows packed tight, problem changes, and its stage timings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class GpuMethodBehaviour : public GpuTest, public ::testing::WithParamInterface<std::string> {
 protected:
  const std::string& id() const { return GetParam(); }
};

FilterProblem problem_of(int width, int height, PixelFormat format, double sigma, BorderMode border) {
  FilterProblem problem{width, height, format, {}};
  problem.params.sigma = sigma;
  problem.params.border = border;
  return problem;
}

// A 1D signal of `length` float samples (FilterAxes::RowsOnly): what tiled_1d takes.
FilterProblem signal_of(int length, double sigma, BorderMode border) {
  FilterProblem problem = problem_of(length, 1, PixelFormat::F32, sigma, border);
  problem.params.axes = FilterAxes::RowsOnly;
  return problem;
}

// "" when equal, else where the first difference is.
std::string first_difference(const TestImage& a, const TestImage& b) {
  const auto* pa = static_cast<const unsigned char*>(a.view().data);
  const auto* pb = static_cast<const unsigned char*>(b.view().data);
  for (std::size_t i = 0; i < a.size_bytes(); ++i)
    if (pa[i] != pb[i]) {
      const std::size_t pixel = i / bytes_per_pixel(a.format());
      return "first difference at pixel (" + std::to_string(pixel % a.width()) + ", " +
             std::to_string(pixel / a.width()) + ")";
    }
  return {};
}

// A key for the reference cache that is unique to this test's own image.
std::string image_key(const char* test, const FilterProblem& problem, std::uint32_t seed) {
  return std::string(test) + "/" + to_string(problem.format) + "/" + std::to_string(problem.width) + "x" +
         std::to_string(problem.height) + "/" + std::to_string(seed);
}

// ---- determinism ------------------------------------------------------------------------------

TEST_P(GpuMethodBehaviour, RepeatedRunsAndFreshInstancesGiveIdenticalResults) {
  const FilterProblem signal = signal_of(4099, 3.0, BorderMode::Mirror);  // the methods that filter along x only
  const std::vector<FilterProblem> candidates = {problem_of(127, 61, PixelFormat::Rgba8, 2.5, BorderMode::Reflect),
                                                 problem_of(127, 61, PixelFormat::F32, 8.0, BorderMode::Wrap),
                                                 problem_of(61, 127, PixelFormat::Rgba8, 1.0, BorderMode::Nearest),
                                                 // float within separable_tf32's radius 24
                                                 problem_of(67, 131, PixelFormat::F32, 5.0, BorderMode::Mirror),
                                                 signal};
  const std::unique_ptr<Method> method = create_method(id());
  int tested = 0;
  std::string refusals;
  for (const FilterProblem& problem : candidates) {
    if (const std::string reason = method->unsupported_reason(problem); !reason.empty()) {
      refusals += where(id(), problem) + ": " + reason + "; ";
      continue;
    }
    ++tested;
    const TestImage src = TestImage::random(problem.width, problem.height, problem.format, 5);
    TestImage first(problem.width, problem.height, problem.format), second = first, fresh = first;
    RunOptions options;
    options.stream = stream();
    options.poison_output = true;
    run_on_host(*method, src.view(), first.view(), problem.params, options);
    run_on_host(*method, src.view(), second.view(), problem.params, options);
    run_on_host(*create_method(id()), src.view(), fresh.view(), problem.params, options);
    EXPECT_EQ(first_difference(first, second), "") << where(id(), problem) << ": two runs of one instance differ";
    EXPECT_EQ(first_difference(first, fresh), "") << where(id(), problem) << ": a fresh instance gives another result";
    const Comparison comparison = compare_with_reference_of(image_key("determinism", problem, 5), src.view(),
                                                            first.view(), problem.params,
                                                            method->accuracy_bound(problem));
    EXPECT_TRUE(comparison.passed()) << where(id(), problem) << ": " << comparison.describe();
  }
  if (tested == 0) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;
}

// ---- two instances on one stream --------------------------------------------------------------

TEST_P(GpuMethodBehaviour, TwoInstancesWithDifferentSigmasAlternateOnOneStream) {
  // Different sigma, size and border, so that any state the instances share (module-global
  // __constant__ weights, static scratch buffers) gives one of them the other's result.
  int tested = 0;
  std::string refusals;
  // RGBA8, float and a 1D signal (tiled_1d), each kind's A and B of other sizes and sigmas.
  const std::pair<FilterProblem, FilterProblem> pairs[] = {
      {problem_of(64, 48, PixelFormat::Rgba8, 1.0, BorderMode::Reflect),
       problem_of(96, 40, PixelFormat::Rgba8, 6.0, BorderMode::Mirror)},
      {problem_of(64, 48, PixelFormat::F32, 1.0, BorderMode::Reflect),
       problem_of(96, 40, PixelFormat::F32, 6.0, BorderMode::Mirror)},
      {signal_of(4099, 1.0, BorderMode::Reflect), signal_of(2011, 6.0, BorderMode::Mirror)}};
  for (auto [problem_a, problem_b] : pairs) {
    const std::unique_ptr<Method> a = create_method(id()), b = create_method(id());
    // A method that decimates (multires: sigma 4 up) gets sigma 4 for A, still not B's 6; one whose
    // radius stops below 24 (lut_2d 8, separable_mma 12) sigma 1.8 for B, still not A's 1.
    if (!a->unsupported_reason(problem_a).empty()) problem_a.params.sigma = 4.0;
    if (!b->unsupported_reason(problem_b).empty()) problem_b.params.sigma = 1.8;
    const std::string refused_a = a->unsupported_reason(problem_a), refused_b = b->unsupported_reason(problem_b);
    if (!refused_a.empty() || !refused_b.empty()) {
      refusals += where(id(), problem_a) + ": " + refused_a + " " + refused_b + "; ";
      continue;
    }
    ++tested;
    const PixelFormat format = problem_a.format;
    const int wa = problem_a.width, ha = problem_a.height, wb = problem_b.width, hb = problem_b.height;
    const TestImage src_a = TestImage::random(wa, ha, format, 21), src_b = TestImage::random(wb, hb, format, 22);
    a->prepare(problem_a);
    b->prepare(problem_b);  // both prepared before either runs, as two views of the viewer would be

    DeviceImage d_src_a, d_src_b;
    d_src_a.upload(src_a.view(), stream());
    d_src_b.upload(src_b.view(), stream());
    DeviceImage d_out[4] = {{wa, ha, format}, {wb, hb, format}, {wa, ha, format}, {wb, hb, format}};
    a->run(d_src_a.view(), d_out[0].view(), nullptr, stream());
    b->run(d_src_b.view(), d_out[1].view(), nullptr, stream());
    a->run(d_src_a.view(), d_out[2].view(), nullptr, stream());
    b->run(d_src_b.view(), d_out[3].view(), nullptr, stream());
    TestImage out[4] = {{wa, ha, format}, {wb, hb, format}, {wa, ha, format}, {wb, hb, format}};
    for (int i = 0; i < 4; ++i) d_out[i].download(out[i].view(), stream());
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream()));

    const char* hint = ": instances must not share state (module-global __constant__ weights or scratch); "
                       "upload per-instance data on the run's stream or keep it in the instance";
    for (int i = 0; i < 4; ++i) {
      const bool is_a = i % 2 == 0;
      const FilterProblem& problem = is_a ? problem_a : problem_b;
      const Comparison comparison = compare_with_reference_of(
          image_key("two-instances", problem, is_a ? 21 : 22), (is_a ? src_a : src_b).view(), out[i].view(),
          problem.params, (is_a ? a : b)->accuracy_bound(problem));
      EXPECT_TRUE(comparison.passed()) << where(id(), problem) << ", instance " << (is_a ? "A" : "B") << " run "
                                       << i / 2 + 1 << " of 2, alternating with the other instance: "
                                       << comparison.describe() << hint;
    }
    EXPECT_EQ(first_difference(out[0], out[2]), "") << where(id(), problem_a) << ": instance A's two runs differ" << hint;
    EXPECT_EQ(first_difference(out[1], out[3]), "") << where(id(), problem_b) << ": instance B's two runs differ" << hint;
  }
  if (tested == 0) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;
}

// ---- pitched views ----------------------------------------------------------------------------

TEST_P(GpuMethodBehaviour, TightDestinationPitchAndOddSourcePitch) {
  // A caller may pass rows packed at width × 4 bytes (the viewer's pixel buffers did), so rows after
  // the first are only 4-byte aligned. The source here has a pitch that no cudaMallocPitch gives.
  // (RGBA8 at sigma 16: multires's tensor-core row reduce, whose fill copies 16 bytes at a time where
  // the rows allow, takes its 4-byte path here.) RGB8 and grey16 rows packed tight start on 1- and
  // 2-byte boundaries only, which the channel adapter takes (it reads whole samples); RGBA16 and
  // RGBA32F rows of whole pixels (8 and 16 bytes), which their own kernels need.
  constexpr std::size_t kGuardBytes = 256;
  constexpr unsigned char kGuard = 0xA5, kSourcePadding = 0x7F;  // 0x7F7F7F7F is 3.4e38 as a float
  int tested = 0;
  std::string refusals;
  for (const FilterProblem& problem : {problem_of(61, 37, PixelFormat::Rgba8, 2.5, BorderMode::Mirror),
                                       problem_of(61, 37, PixelFormat::Rgba8, 1.5, BorderMode::Reflect),  // lut_2d: radius 8 at most
                                       signal_of(61, 2.5, BorderMode::Mirror),                            // tiled_1d
                                       problem_of(61, 37, PixelFormat::Rgba8, 16.0, BorderMode::Wrap),
                                       problem_of(61, 37, PixelFormat::F32, 8.0, BorderMode::Nearest),
                                       problem_of(1, 37, PixelFormat::F32, 1.0, BorderMode::Reflect),
                                       problem_of(61, 37, PixelFormat::Rgb8, 2.5, BorderMode::Reflect),
                                       problem_of(61, 37, PixelFormat::Grey16, 4.5, BorderMode::Constant),
                                       problem_of(61, 37, PixelFormat::Rgba16, 2.5, BorderMode::Mirror),
                                       problem_of(61, 37, PixelFormat::Rgba32F, 4.5, BorderMode::Wrap)}) {
    const std::unique_ptr<Method> method = create_method(id());
    if (const std::string reason = method->unsupported_reason(problem); !reason.empty()) {
      refusals += where(id(), problem) + ": " + reason + "; ";
      continue;
    }
    ++tested;
    const std::size_t pixel_bytes = bytes_per_pixel(problem.format);
    const std::size_t src_pitch = (problem.width + 2) * pixel_bytes;  // 252 bytes for width 61
    const std::size_t dst_pitch = problem.width * pixel_bytes;        // tight
    const std::size_t dst_bytes = dst_pitch * problem.height;
    const TestImage src = TestImage::random(problem.width, problem.height, problem.format, 31);

    DeviceBuffer d_src_buffer(src_pitch * problem.height);
    GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(d_src_buffer.data(), kSourcePadding, d_src_buffer.size_bytes(), stream()));
    const ImageView d_src{d_src_buffer.data(), problem.width, problem.height, src_pitch, problem.format};
    copy_image_async(src.view(), d_src, cudaMemcpyHostToDevice, stream());

    DeviceBuffer d_dst_buffer(kGuardBytes + dst_bytes + kGuardBytes);
    GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(d_dst_buffer.data(), kGuard, d_dst_buffer.size_bytes(), stream()));
    const ImageView d_dst{d_dst_buffer.as<char>() + kGuardBytes, problem.width, problem.height, dst_pitch,
                          problem.format};
    GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(d_dst.data, 0xFF, dst_bytes, stream()));  // poison

    method->prepare(problem);
    method->run(d_src, d_dst, nullptr, stream());
    std::vector<unsigned char> downloaded(d_dst_buffer.size_bytes());
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(downloaded.data(), d_dst_buffer.data(), downloaded.size(),
                                        cudaMemcpyDeviceToHost, stream()));
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream()));

    std::size_t before = 0, after = 0;
    for (std::size_t i = 0; i < kGuardBytes; ++i) {
      before += downloaded[i] != kGuard;
      after += downloaded[kGuardBytes + dst_bytes + i] != kGuard;
    }
    EXPECT_EQ(before + after, 0u) << where(id(), problem) << ": wrote outside the destination (" << before
                                  << " bytes changed just before it, " << after
                                  << " just after it); with a tight pitch, rows end at width × "
                                  << pixel_bytes << " bytes";
    const ConstImageView result(downloaded.data() + kGuardBytes, problem.width, problem.height, dst_pitch,
                                problem.format);
    const Comparison comparison = compare_with_reference_of(image_key("pitches", problem, 31), src.view(), result,
                                                            problem.params, method->accuracy_bound(problem));
    EXPECT_TRUE(comparison.passed()) << where(id(), problem) << " with source pitch " << src_pitch
                                     << " bytes and destination pitch " << dst_pitch << " bytes: "
                                     << comparison.describe();
  }
  if (tested == 0) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;
}

// ---- problem changes --------------------------------------------------------------------------

std::vector<FilterProblem> changing_problems() {
  std::vector<FilterProblem> problems = {
      problem_of(64, 48, PixelFormat::Rgba8, 2.0, BorderMode::Reflect),
      problem_of(64, 48, PixelFormat::Rgba8, 5.0, BorderMode::Reflect),   // sigma
      problem_of(64, 48, PixelFormat::Rgba8, 5.0, BorderMode::Wrap),      // border
      problem_of(33, 71, PixelFormat::Rgba8, 5.0, BorderMode::Wrap),      // size (smaller, transposed shape)
      problem_of(33, 71, PixelFormat::F32, 5.0, BorderMode::Wrap),        // format
      problem_of(33, 71, PixelFormat::Rgba16, 5.0, BorderMode::Wrap),     // a format of its own kernels
      problem_of(33, 71, PixelFormat::Rgb16F, 5.0, BorderMode::Wrap),     // through the channel adapter
      problem_of(33, 71, PixelFormat::Grey8, 5.0, BorderMode::Wrap),      // its channels: 3, then 1
      problem_of(200, 150, PixelFormat::F32, 1.5, BorderMode::Constant),  // larger
  };
  FilterProblem truncated = problem_of(200, 150, PixelFormat::F32, 1.5, BorderMode::Constant);
  truncated.params.truncate = 2.5;  // radius 4 instead of 6
  problems.push_back(truncated);
  FilterProblem fixed = problem_of(200, 150, PixelFormat::F32, 3.0, BorderMode::Nearest);
  fixed.params.fixed_radius = 2;  // radius set directly
  problems.push_back(fixed);
  problems.push_back(signal_of(4099, 3.0, BorderMode::Mirror));  // 1D signals (tiled_1d): the length
  problems.push_back(signal_of(1000, 8.0, BorderMode::Wrap));    // and sigma and border change
  problems.push_back(problems.front());  // and back to the start
  return problems;
}

TEST_P(GpuMethodBehaviour, ProblemChangesBetweenRunsArePreparedAgain) {
  const std::unique_ptr<Method> method = create_method(id());
  int tested = 0;
  std::string refusals;
  const std::vector<FilterProblem> problems = changing_problems();
  for (std::size_t step = 0; step < problems.size(); ++step) {
    const FilterProblem& problem = problems[step];
    if (const std::string reason = method->unsupported_reason(problem); !reason.empty()) {
      refusals += where(id(), problem) + ": " + reason + "; ";
      continue;
    }
    ++tested;
    const std::uint32_t seed = 40 + static_cast<std::uint32_t>(step % (problems.size() - 1));
    const TestImage src = TestImage::random(problem.width, problem.height, problem.format, seed);
    TestImage out(problem.width, problem.height, problem.format);
    RunOptions options;
    options.stream = stream();
    options.poison_output = true;
    run_on_host(*method, src.view(), out.view(), problem.params, options);
    EXPECT_EQ(method->prepared_problem(), problem) << where(id(), problem) << ": prepared_problem() is stale";
    const Comparison comparison = compare_with_reference_of(image_key("changes", problem, seed), src.view(),
                                                            out.view(), problem.params, method->accuracy_bound(problem));
    EXPECT_TRUE(comparison.passed()) << where(id(), problem) << ", step " << step + 1 << " of " << problems.size()
                                     << " (after " << (step ? where(id(), problems[step - 1]) : "nothing")
                                     << "): " << comparison.describe();
  }
  if (tested == 0) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;
}

TEST_P(GpuMethodBehaviour, PrepareWhileTheLastRunIsStillInFlight) {
  // The viewer never waits for a frame: when the slider moves, prepare() for the new sigma comes
  // while the previous run may still be executing. Whatever prepare() changes must not alter it.
  const int big_side = quick_mode() ? 384 : 2048;
  int tested = 0;
  std::string refusals;
  // RGBA8 and float images of big_side², and a 1D signal of as many samples (tiled_1d).
  for (const int kind : {0, 1, 2}) {
    const std::unique_ptr<Method> method = create_method(id());
    const PixelFormat format = kind == 0 ? PixelFormat::Rgba8 : PixelFormat::F32;
    const auto problem = [&](double sigma, BorderMode border) {
      return kind == 2 ? signal_of(big_side * big_side, sigma, border) : problem_of(big_side, big_side, format, sigma, border);
    };
    // Sigma 8, or 5 for a method whose radius stops below 32 (separable_tf32), or 2 below 20
    // (lut_2d: 8, separable_mma: 12).
    FilterProblem big = problem(8.0, BorderMode::Reflect);
    if (!method->unsupported_reason(big).empty()) big = problem(5.0, BorderMode::Reflect);
    if (!method->unsupported_reason(big).empty()) big = problem(2.0, BorderMode::Reflect);
    FilterProblem next = problem(2.0, BorderMode::Mirror);
    // Sigma 5 for a method that decimates (multires: sigma 4 up): still another sigma than the big run's.
    if (!method->unsupported_reason(next).empty()) next = problem(5.0, BorderMode::Mirror);
    if (next.params.sigma == big.params.sigma) next = problem(6.0, BorderMode::Mirror);
    if (!method->unsupported_reason(next).empty()) next = problem(1.0, BorderMode::Mirror);
    const std::string refused = method->unsupported_reason(big) + method->unsupported_reason(next);
    if (!refused.empty()) {
      refusals += std::string(kind == 2 ? "a 1D signal" : to_string(format)) + ": " + refused + "; ";
      continue;
    }
    ++tested;
    const int width = big.width, height = big.height;
    const TestImage src = TestImage::random(width, height, format, 51);
    DeviceImage d_src, d_out_big(width, height, format), d_out_next(width, height, format);
    d_src.upload(src.view(), stream());
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream()));

    method->prepare(big);
    method->run(d_src.view(), d_out_big.view(), nullptr, stream());
    method->prepare(next);  // no synchronisation: the big run may still be executing
    method->run(d_src.view(), d_out_next.view(), nullptr, stream());
    TestImage out_big(width, height, format), out_next(width, height, format);
    d_out_big.download(out_big.view(), stream());
    d_out_next.download(out_next.view(), stream());
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream()));

    const char* hint = ": prepare() changed data that the earlier run still read; it may synchronise the "
                       "device, or keep per-problem data apart, or upload it in run() on the stream";
    const Comparison first = compare_with_reference_of(image_key("in-flight", big, 51), src.view(), out_big.view(),
                                                       big.params, method->accuracy_bound(big));
    EXPECT_TRUE(first.passed()) << where(id(), big) << ", run just before prepare(" << describe(next.params)
                                << "): " << first.describe() << hint;
    const Comparison second = compare_with_reference_of(image_key("in-flight", next, 51), src.view(),
                                                        out_next.view(), next.params, method->accuracy_bound(next));
    EXPECT_TRUE(second.passed()) << where(id(), next) << ", run after re-preparing: " << second.describe();
  }
  if (tested == 0) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;
}

// ---- stage timings ----------------------------------------------------------------------------

TEST_P(GpuMethodBehaviour, StageTimerRecordsTheMethodsStages) {
  const std::unique_ptr<Method> method = create_method(id());
  std::string refusals;
  const std::optional<FilterProblem> problem =
      first_supported(*method, {problem_of(256, 128, PixelFormat::Rgba8, 3.0, BorderMode::Reflect),
                                problem_of(256, 128, PixelFormat::F32, 3.0, BorderMode::Reflect),
                                problem_of(256, 128, PixelFormat::Rgba8, 5.0, BorderMode::Reflect),  // multires: sigma 4 up
                                problem_of(256, 128, PixelFormat::Rgba8, 1.5, BorderMode::Reflect),  // lut_2d: radius 8 at most
                                signal_of(4099, 3.0, BorderMode::Reflect)},                          // tiled_1d
                      refusals);
  if (!problem) GTEST_SKIP() << id() << " refuses every problem this test tries: " << refusals;

  const TestImage src = TestImage::random(problem->width, problem->height, problem->format, 61);
  TestImage out(problem->width, problem->height, problem->format);
  StageTimer timer;
  RunOptions options;
  options.stream = stream();
  options.timer = &timer;
  constexpr int kFrames = 4;
  for (int frame = 0; frame < kFrames; ++frame) {
    timer.begin_frame();
    run_on_host(*method, src.view(), out.view(), problem->params, options);
    timer.end_frame();
  }
  timer.flush();
  EXPECT_EQ(timer.completed_frames(), kFrames) << where(id(), *problem);
  const std::vector<StageTiming> stages = timer.stages();
  ASSERT_FALSE(stages.empty()) << where(id(), *problem)
                               << ": run() recorded no stage; wrap each kernel in ScopedStage(timer, \"name\", stream)";
  std::string names;
  for (const StageTiming& stage : stages) {
    names += (names.empty() ? "" : ", ") + stage.name + " " + std::to_string(stage.median_ms) + " ms";
    EXPECT_FALSE(stage.name.empty()) << where(id(), *problem) << ": a stage without a name";
    EXPECT_TRUE(std::isfinite(stage.last_ms) && stage.last_ms >= 0 && stage.last_ms < 10000)
        << where(id(), *problem) << ": stage '" << stage.name << "' took " << stage.last_ms << " ms";
    EXPECT_TRUE(std::isfinite(stage.median_ms) && stage.median_ms >= 0) << stage.name;
  }
  EXPECT_GT(timer.frame_median_ms(), 0.0) << where(id(), *problem) << ": the stages add up to nothing (" << names << ")";
  std::cout << "[ STAGES   ] " << id() << " " << where(id(), *problem) << ": " << names << "\n";
}

INSTANTIATE_TEST_SUITE_P(Methods, GpuMethodBehaviour, ::testing::ValuesIn(gpu_method_ids()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuMethodBehaviour);

}  // namespace
}  // namespace gausslab::gpu_test
