// The GPU engine against the CPU engine (the reference): the same shifts up to the order of the
// sums, the same decisions (coarse matches, integer offsets, verdicts, scene cuts, degenerate
// frames), whitened frames within float rounding; and the issue's criteria on the GPU's own
// results (accuracy, the hard cases: a garbage frame, a scene cut, ±20 px shifts, a bright
// target's ghosts, the correlation weights). Skipped with the reason where there is no CUDA device.
#include <gtest/gtest.h>

#include <cmath>

#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "sequence_test_kit.hpp"

namespace gausslab {
namespace {

class GpuSequence : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_status().available) GTEST_SKIP() << cuda_device_status().reason;
  }
};

// Float rounding of a whitened value: the frames are in [0, 1] and the GPU sums N float products
// (fused) where the CPU sums in double.
constexpr double kWhitenedTolerance = 1e-5;

struct Comparison {
  double shift = 0, whitened = 0;
};

Comparison compare(const std::vector<FrameOutcome>& gpu, const std::vector<FrameOutcome>& cpu) {
  Comparison worst;
  EXPECT_EQ(gpu.size(), cpu.size());
  for (std::size_t t = 0; t < std::min(gpu.size(), cpu.size()); ++t) {
    EXPECT_EQ(gpu[t].shift.status, cpu[t].shift.status) << "frame " << t;
    EXPECT_EQ(gpu[t].verdict, cpu[t].verdict) << "frame " << t;
    EXPECT_EQ(gpu[t].shift.segment, cpu[t].shift.segment) << "frame " << t;
    EXPECT_EQ(gpu[t].shift.flags, cpu[t].shift.flags) << "frame " << t;
    EXPECT_FLOAT_EQ(gpu[t].shift.match, cpu[t].shift.match) << "frame " << t;  // the coarse scores are bit for bit
    if (seq::shift_usable(gpu[t].shift)) {  // a failed match's offsets do not matter
      EXPECT_EQ(gpu[t].shift.kx, cpu[t].shift.kx) << "frame " << t;
      EXPECT_EQ(gpu[t].shift.ky, cpu[t].shift.ky) << "frame " << t;
    }
    EXPECT_EQ(gpu[t].whitened, cpu[t].whitened) << "frame " << t;
    EXPECT_EQ(gpu[t].reference_candidate, cpu[t].reference_candidate) << "frame " << t;
    if (seq::shift_usable(gpu[t].shift) && seq::shift_usable(cpu[t].shift))
      worst.shift = std::max({worst.shift, std::fabs(gpu[t].shift.dx - cpu[t].shift.dx),
                              std::fabs(gpu[t].shift.dy - cpu[t].shift.dy)});
    const ImageF32 &a = gpu[t].whitened_frame, &b = cpu[t].whitened_frame;
    EXPECT_EQ(a.pixel_count(), b.pixel_count());
    for (std::size_t i = 0; i < std::min(a.pixel_count(), b.pixel_count()); ++i)
      worst.whitened = std::max(worst.whitened, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
  }
  return worst;
}

std::vector<FrameOutcome> run(SequenceBackend backend, const SyntheticSequence& sky, const SequenceSettings& s,
                              Method* prefilter = nullptr, FilterParams params = {}) {
  auto engine = create_sequence_engine(backend);
  return test::run_engine(*engine, sky, s, prefilter, params);
}

TEST_F(GpuSequence, GpuEqualsCpuOnTheAccuracySky) {
  const SyntheticSequence sky(test::accuracy_sky());
  const SequenceSettings s;
  const std::vector<FrameOutcome> gpu = run(SequenceBackend::Gpu, sky, s), cpu = run(SequenceBackend::Cpu, sky, s);
  const Comparison c = compare(gpu, cpu);
  std::printf("GPU against CPU: shifts within %.2e px, whitened within %.2e\n", c.shift, c.whitened);
  EXPECT_LE(c.shift, 1e-9);
  EXPECT_LE(c.whitened, kWhitenedTolerance);
}

TEST_F(GpuSequence, GpuMeetsTheIssuesAccuracyCriteria) {
  const SyntheticSequence sky(test::accuracy_sky());
  const SequenceSettings s;
  const std::vector<FrameOutcome> out = run(SequenceBackend::Gpu, sky, s);
  double sum = 0, worst_noise = 0, weakest_target = 1e9;
  for (int t = 1; t < sky.spec().frames; ++t) {
    const ShiftXY truth = sky.true_shift(t);
    sum += std::pow(out[t].shift.dx - truth.dx, 2) + std::pow(out[t].shift.dy - truth.dy, 2);
    if (t < s.history) continue;
    const double deviation = test::robust_deviation(out[t].whitened_frame);
    worst_noise = std::max(worst_noise, deviation / sky.noise_sigma());
    const TargetPoint target = sky.target(t);
    if (target.inside)
      weakest_target = std::min(weakest_target, test::peak_near(out[t].whitened_frame, target.x, target.y) / deviation);
  }
  const double rms = std::sqrt(sum / (sky.spec().frames - 1));
  std::printf("GPU: RMS shift error %.4f px, whitened noise at most %.3f x, target at least %.2f deviations\n", rms,
              worst_noise, weakest_target);
  EXPECT_LE(rms, 0.05);
  EXPECT_LE(worst_noise, 1.3);
  EXPECT_GE(weakest_target, 2.0);
}

TEST_F(GpuSequence, GpuEqualsCpuOnOddSizesLargeShiftsAndEveryDegree) {
  struct Case {
    int width, height, frames, history, degree;
    double jitter, gamma;
  };
  for (const Case& k : {Case{9, 13, 6, 3, 1, 0.5, 0.01}, Case{257, 129, 12, 8, 4, 8.0, 1e-4},
                        Case{1001, 701, 10, 6, 0, 3.0, 0.01}, Case{64, 200, 9, 5, 3, 2.0, 1.0}}) {
    SyntheticSpec spec = test::accuracy_sky(k.frames);
    spec.width = std::max(k.width, 16);  // the sky's smallest; cropped to the case's size below
    spec.height = std::max(k.height, 16);
    spec.jitter = k.jitter;
    const SyntheticSequence sky(spec);
    std::vector<ImageF32> frames;
    for (int t = 0; t < k.frames; ++t) {
      const ImageF32 full = sky.frame(t);
      ImageF32 crop(k.width, k.height);
      for (int y = 0; y < k.height; ++y)
        for (int x = 0; x < k.width; ++x) crop.at(x, y) = full.at(x, y);
      frames.push_back(std::move(crop));
    }
    SequenceSettings s;
    s.history = k.history;
    s.degree = k.degree;
    s.gamma = k.gamma;
    auto gpu_engine = create_sequence_engine(SequenceBackend::Gpu);
    auto cpu_engine = create_sequence_engine(SequenceBackend::Cpu);
    const Comparison c = compare(test::run_engine(*gpu_engine, frames, s), test::run_engine(*cpu_engine, frames, s));
    EXPECT_LE(c.shift, 1e-9) << k.width << "x" << k.height;
    EXPECT_LE(c.whitened, kWhitenedTolerance) << k.width << "x" << k.height;
  }
}

TEST_F(GpuSequence, FlatFramesAreHandledAsOnTheCpu) {
  const SyntheticSequence sky(test::accuracy_sky(14));
  std::vector<ImageF32> frames;
  for (int t = 0; t < 14; ++t) frames.push_back(sky.frame(t));
  frames[0] = ImageF32(frames[0].width(), frames[0].height(), 0.3f);  // cannot be the reference
  frames[9] = ImageF32(frames[0].width(), frames[0].height(), 0.2f);  // no shift, left out
  SequenceSettings s;
  s.history = 5;
  auto gpu_engine = create_sequence_engine(SequenceBackend::Gpu);
  auto cpu_engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> gpu = test::run_engine(*gpu_engine, frames, s);
  const std::vector<FrameOutcome> cpu = test::run_engine(*cpu_engine, frames, s);
  const Comparison c = compare(gpu, cpu);
  EXPECT_EQ(gpu[0].shift.status, static_cast<int>(seq::ShiftStatus::Degenerate));
  EXPECT_EQ(gpu[1].shift.status, static_cast<int>(seq::ShiftStatus::Reference));
  EXPECT_EQ(gpu[9].shift.status, static_cast<int>(seq::ShiftStatus::Degenerate));
  EXPECT_LE(c.shift, 1e-9);
  EXPECT_LE(c.whitened, kWhitenedTolerance);
}

TEST_F(GpuSequence, AGpuPreFilterMatchesTheCpuPreFilter) {
  const SyntheticSequence sky(test::accuracy_sky(26));
  FilterParams params;
  params.sigma = 1.0;
  auto gpu_filter = find_method("separable_shared")->create();
  auto cpu_filter = find_method("cpu_separable")->create();
  const SequenceSettings s;
  const Comparison c = compare(run(SequenceBackend::Gpu, sky, s, gpu_filter.get(), params),
                               run(SequenceBackend::Cpu, sky, s, cpu_filter.get(), params));
  std::printf("pre-filtered GPU against CPU: shifts within %.2e px, whitened within %.2e\n", c.shift, c.whitened);
  EXPECT_LE(c.shift, 1e-4);  // the two filters agree to float rounding, not bit for bit
  EXPECT_LE(c.whitened, kWhitenedTolerance);
}

TEST_F(GpuSequence, CudaGraphsGiveTheSameResultsAsSingleLaunches) {
  const SyntheticSequence sky(test::accuracy_sky(50));  // more than two turns of the ring
  SequenceSettings s;
  s.history = 12;
  auto run_with = [&](bool graphs) {
    auto engine = create_sequence_engine(SequenceBackend::Gpu);
    SequenceSetup setup;
    setup.width = sky.spec().width;
    setup.height = sky.spec().height;
    setup.settings = s;
    setup.cuda_graphs = graphs;
    engine->begin(setup);
    std::vector<FrameOutcome> out;
    for (int t = 0; t < sky.spec().frames; ++t) {
      engine->push(sky.frame(t).view(), nullptr);
      while (auto o = engine->collect(false)) out.push_back(std::move(*o));
    }
    while (auto o = engine->collect(true)) out.push_back(std::move(*o));
    return out;
  };
  const std::vector<FrameOutcome> graphs = run_with(true), launches = run_with(false);
  const Comparison c = compare(graphs, launches);
  EXPECT_EQ(c.shift, 0.0);  // the same kernels on the same data: bit for bit
  EXPECT_EQ(c.whitened, 0.0);
}

std::vector<FrameOutcome> run_frames(SequenceBackend backend, const std::vector<ImageF32>& frames,
                                     const SequenceSettings& s) {
  auto engine = create_sequence_engine(backend);
  return test::run_engine(*engine, frames, s);
}

TEST_F(GpuSequence, GarbageFramesAndASceneCutAreFoundAsOnTheCpu) {
  // test_sequence_hard_cases.cpp's sequences, end to end on both engines.
  const SyntheticSequence sky(test::accuracy_sky(34));
  std::vector<ImageF32> frames = test::frames_of(sky);
  frames[7] = test::garbage_frame(frames[0].width(), frames[0].height(), 3);
  frames[25] = test::garbage_frame(frames[0].width(), frames[0].height(), 4);
  test::add_noise(frames[30], 8 * sky.noise_sigma(), 5);
  SyntheticSpec other = test::accuracy_sky(26);
  other.seed = 1234;
  const SyntheticSequence b(other);
  std::vector<ImageF32> cut(frames.begin(), frames.begin() + 15);
  for (ImageF32& f : test::frames_of(b)) cut.push_back(std::move(f));
  std::vector<ImageF32> garbage_first = test::frames_of(b);
  garbage_first[0] = test::garbage_frame(frames[0].width(), frames[0].height(), 9);
  const SequenceSettings s;
  for (const std::vector<ImageF32>* input : {&frames, &cut, &garbage_first}) {
    const std::vector<FrameOutcome> gpu = run_frames(SequenceBackend::Gpu, *input, s);
    const std::vector<FrameOutcome> cpu = run_frames(SequenceBackend::Cpu, *input, s);
    const Comparison c = compare(gpu, cpu);
    EXPECT_LE(c.shift, 1e-9);
    EXPECT_LE(c.whitened, kWhitenedTolerance);
  }
  const std::vector<FrameOutcome> gpu = run_frames(SequenceBackend::Gpu, frames, s);
  for (int t : {7, 25, 30}) EXPECT_TRUE(left_out(gpu[t].verdict)) << t << ": " << to_string(gpu[t].verdict);
  EXPECT_EQ(gpu[30].verdict, FrameVerdict::Rejected);
  EXPECT_EQ(run_frames(SequenceBackend::Gpu, cut, s)[15].verdict, FrameVerdict::SegmentStart);
  const std::vector<FrameOutcome> first = run_frames(SequenceBackend::Gpu, garbage_first, s);
  EXPECT_EQ(first[0].verdict, FrameVerdict::LoneReference);
  EXPECT_EQ(first[1].verdict, FrameVerdict::SegmentStart);
}

TEST_F(GpuSequence, ShiftsOfTwentyPixelsAreFoundAsOnTheCpu) {
  SyntheticSpec spec = test::accuracy_sky(24);
  spec.jitter = 20.0;
  const SyntheticSequence sky(spec);
  const SequenceSettings s;
  const std::vector<FrameOutcome> gpu = run(SequenceBackend::Gpu, sky, s), cpu = run(SequenceBackend::Cpu, sky, s);
  const Comparison c = compare(gpu, cpu);
  double sum = 0.0;
  for (int t = 1; t < spec.frames; ++t) {
    const ShiftXY truth = sky.true_shift(t);
    sum += std::pow(gpu[t].shift.dx - truth.dx, 2) + std::pow(gpu[t].shift.dy - truth.dy, 2);
  }
  const double rms = std::sqrt(sum / (spec.frames - 1));
  std::printf("GPU, jitter ±20 px: RMS shift error %.4f px; against the CPU: shifts within %.2e px\n", rms, c.shift);
  EXPECT_LE(rms, 0.1);
  EXPECT_LE(c.shift, 1e-9);
  EXPECT_LE(c.whitened, kWhitenedTolerance);
}

TEST_F(GpuSequence, ABrightTargetIsRemovedFromTheHistoryAsOnTheCpu) {
  SyntheticSpec spec = test::accuracy_sky(30);
  spec.target_brightness = 150.0;
  spec.target_speed = 2.5;
  const SyntheticSequence sky(spec);
  const SequenceSettings s;
  const std::vector<FrameOutcome> gpu = run(SequenceBackend::Gpu, sky, s), cpu = run(SequenceBackend::Cpu, sky, s);
  // Whether a pixel next to the threshold is replaced may differ with the float sums; such a
  // pixel shows in one whitened frame as a difference of about the threshold, not as a ghost.
  const Comparison c = compare(gpu, cpu);
  double deepest = 0.0;
  for (int t = s.history; t < spec.frames; ++t)
    for (int i = t - s.history; i < t; ++i) {
      const TargetPoint now = sky.target(t), then = sky.target(i);
      const double x = then.x - sky.true_shift(i).dx + sky.true_shift(t).dx;
      const double y = then.y - sky.true_shift(i).dy + sky.true_shift(t).dy;
      if (std::hypot(x - now.x, y - now.y) < 6.0 || x < 3 || y < 3 || x > spec.width - 4 || y > spec.height - 4)
        continue;
      deepest = std::min(deepest, test::psf_amplitude(gpu[t].whitened_frame, x, y, spec.psf_sigma) / sky.noise_sigma());
    }
  std::printf("GPU, a target of 150 noise deviations: deepest ghost %.2f deviations; whitened within %.2e of the CPU\n",
              deepest, c.whitened);
  EXPECT_GE(deepest, -3.0);
  EXPECT_LE(c.shift, 1e-9);
}

TEST_F(GpuSequence, TheCorrelationWeightsEqualTheCpusAndWhitenTheSky) {
  const SyntheticSequence sky(test::accuracy_sky());
  for (int history : {20, 64}) {
    SequenceSettings s;
    s.weights = WeightMethod::Correlation;
    s.history = history;
    const SyntheticSequence longer(test::accuracy_sky(history + 12));
    const SyntheticSequence& input = history == 20 ? sky : longer;
    const std::vector<FrameOutcome> gpu = run(SequenceBackend::Gpu, input, s), cpu = run(SequenceBackend::Cpu, input, s);
    const Comparison c = compare(gpu, cpu);
    double worst = 0.0;
    for (int t = history; t < input.spec().frames; ++t)
      worst = std::max(worst, test::robust_deviation(gpu[t].whitened_frame) / input.noise_sigma());
    std::printf("GPU correlation weights, N = %d: whitened within %.3f x the noise, %.2e of the CPU\n", history, worst,
                c.whitened);
    EXPECT_LE(worst, 1.5) << history;
    EXPECT_LE(c.shift, 1e-9) << history;
    EXPECT_LE(c.whitened, 1e-4) << history;  // D is summed in float per chunk on the GPU, in double on the CPU
  }
}

TEST_F(GpuSequence, AnEngineCanStartAnotherSequence) {
  const SyntheticSequence a(test::accuracy_sky(8)), b(test::accuracy_sky(24));
  SequenceSettings s;
  s.history = 4;
  auto engine = create_sequence_engine(SequenceBackend::Gpu);
  test::run_engine(*engine, a, s);
  s.history = 20;
  const std::vector<FrameOutcome> again = test::run_engine(*engine, b, s);
  const Comparison c = compare(again, run(SequenceBackend::Cpu, b, s));
  EXPECT_LE(c.shift, 1e-9);
  EXPECT_LE(c.whitened, kWhitenedTolerance);
}

}  // namespace
}  // namespace gausslab
