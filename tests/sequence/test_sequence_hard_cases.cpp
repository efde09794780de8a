// The hard cases of a sequence on the CPU engine (the GPU engine is held to the same in
// tests/sequence/test_gpu_sequence.cpp): a frame of pure noise, a scene cut, shifts of ±20 px
// with the default settings, a bright moving target, and the correlation-matrix weights. The skies
// are the project's own synthetic generator's.
#include <gtest/gtest.h>

#include <cmath>

#include "gausslab/sequence/sequence_engine.hpp"
#include "sequence_test_kit.hpp"

namespace gausslab {
namespace {

using seq::ShiftStatus;

constexpr double kBackToNoise = 1.5;  // the bound on a whitened frame, in noise deviations

double noise_ratio(const FrameOutcome& o, const SyntheticSequence& sky) {
  return test::robust_deviation(o.whitened_frame) / sky.noise_sigma();
}

TEST(SequenceHardCases, AGarbageFrameIsLeftOutAndHarmsNoOtherFrame) {
  const SyntheticSequence sky(test::accuracy_sky(34));
  std::vector<ImageF32> frames = test::frames_of(sky);
  const int during_fill = 7, after_fill = 25, noisy = 30;
  frames[during_fill] = test::garbage_frame(frames[0].width(), frames[0].height(), 3);
  frames[after_fill] = test::garbage_frame(frames[0].width(), frames[0].height(), 4);
  // The right scene under eight times the noise: it matches, but its residual gives it away.
  test::add_noise(frames[noisy], 8 * sky.noise_sigma(), 5);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const SequenceSettings settings;
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, settings);
  ASSERT_EQ(out.size(), frames.size());
  double worst = 0.0;
  for (int t = 0; t < static_cast<int>(out.size()); ++t) {
    if (t == during_fill || t == after_fill || t == noisy) {
      EXPECT_TRUE(left_out(out[t].verdict)) << "frame " << t << ": " << to_string(out[t].verdict);
      EXPECT_FALSE(out[t].whitened) << t;
      continue;
    }
    EXPECT_EQ(out[t].verdict, t == 0 ? FrameVerdict::Reference : FrameVerdict::Used) << "frame " << t;
    const ShiftXY truth = sky.true_shift(t);
    EXPECT_NEAR(out[t].shift.dx, truth.dx, 0.1) << t;
    EXPECT_NEAR(out[t].shift.dy, truth.dy, 0.1) << t;
    if (t < settings.history) continue;
    ASSERT_TRUE(out[t].whitened) << t;
    worst = std::max(worst, noise_ratio(out[t], sky));
  }
  std::printf("garbage frames %d (%s, match %.1f) and %d (%s, match %.1f), a noisy frame %d (%s, match %.1f, "
              "residual %.1f x the history's): the others whitened within %.3f x the noise\n",
              during_fill, to_string(out[during_fill].verdict), out[during_fill].shift.match, after_fill,
              to_string(out[after_fill].verdict), out[after_fill].shift.match, noisy, to_string(out[noisy].verdict),
              out[noisy].shift.match, out[noisy].shift.residual_ratio, worst);
  EXPECT_EQ(out[noisy].verdict, FrameVerdict::Rejected);
  EXPECT_LE(worst, kBackToNoise);
}

TEST(SequenceHardCases, ASceneCutStartsANewSegmentAndTheWhitenedFramesRecover) {
  const int cut = 15, history = SequenceSettings{}.history, frames_after = history + 6;
  SyntheticSpec first = test::accuracy_sky(cut), second = test::accuracy_sky(frames_after);
  second.seed = 1234;  // another star field, another background
  const SyntheticSequence a(first), b(second);
  std::vector<ImageF32> frames = test::frames_of(a);
  for (ImageF32& f : test::frames_of(b)) frames.push_back(std::move(f));
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, SequenceSettings{});
  ASSERT_EQ(out.size(), frames.size());
  EXPECT_EQ(out[cut].verdict, FrameVerdict::SegmentStart) << to_string(out[cut].verdict);
  EXPECT_EQ(out[cut].shift.segment, 1);
  int cuts = 0;
  double worst = 0.0;
  for (int t = 0; t < static_cast<int>(out.size()); ++t) {
    cuts += out[t].verdict == FrameVerdict::SegmentStart;
    if (t == 0 || t == cut) continue;
    ASSERT_EQ(out[t].verdict, FrameVerdict::Used) << "frame " << t << ": " << to_string(out[t].verdict);
    // Shifts are relative to the segment's reference.
    const ShiftXY truth = t < cut ? a.true_shift(t) : b.true_shift(t - cut), ref = t < cut ? ShiftXY{} : b.true_shift(0);
    EXPECT_NEAR(out[t].shift.dx, truth.dx - ref.dx, 0.1) << t;
    EXPECT_NEAR(out[t].shift.dy, truth.dy - ref.dy, 0.1) << t;
    // Within the history's length of the cut the history has filled again, from the new scene only.
    EXPECT_EQ(out[t].whitened, t >= cut + history) << t;
    if (out[t].whitened) worst = std::max(worst, noise_ratio(out[t], b));
  }
  EXPECT_EQ(cuts, 1);
  std::printf("scene cut at frame %d: a new segment; from frame %d on whitened within %.3f x the noise\n", cut,
              cut + history, worst);
  EXPECT_LE(worst, kBackToNoise);
  // The measure of a history that never recovers: 1-7 % of the pixels beyond 5 noise
  // deviations in every later frame.
  for (int t = cut + history; t < static_cast<int>(out.size()); ++t) {
    int beyond = 0;
    for (float v : out[t].whitened_frame.pixels()) beyond += std::fabs(v) > 5 * b.noise_sigma();
    EXPECT_LT(beyond, 0.002 * out[t].whitened_frame.pixel_count()) << beyond << " pixels beyond 5 sigma in frame " << t;
  }
}

TEST(SequenceHardCases, AGarbageFirstFrameIsLeftOutAndTheNextFrameBecomesTheReference) {
  // Noise has 2D structure, so frame 0 becomes the reference; nothing matches it, frame 2 matches
  // frame 1: a new segment from frame 1, and frame 0, matched by no frame, is left out.
  const SyntheticSequence sky(test::accuracy_sky(10));
  std::vector<ImageF32> frames = test::frames_of(sky);
  frames[0] = test::garbage_frame(frames[0].width(), frames[0].height(), 9);
  SequenceSettings settings;
  settings.history = 4;
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, settings);
  EXPECT_EQ(out[0].verdict, FrameVerdict::LoneReference) << to_string(out[0].verdict);
  EXPECT_EQ(out[1].verdict, FrameVerdict::SegmentStart) << to_string(out[1].verdict);
  for (int t = 2; t < 10; ++t) {
    ASSERT_EQ(out[t].verdict, FrameVerdict::Used) << t;
    const ShiftXY truth = sky.true_shift(t), ref = sky.true_shift(1);
    EXPECT_NEAR(out[t].shift.dx, truth.dx - ref.dx, 0.1) << t;
    EXPECT_NEAR(out[t].shift.dy, truth.dy - ref.dy, 0.1) << t;
    EXPECT_EQ(out[t].whitened, t >= 1 + settings.history) << t;
  }
}

TEST(SequenceHardCases, ShiftsOfTwentyPixelsAreFoundWithTheDefaultSettings) {
  SyntheticSpec spec = test::accuracy_sky(24);
  spec.jitter = 20.0;
  const SyntheticSequence sky(spec);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, sky, SequenceSettings{});
  double sum = 0.0, worst = 0.0, largest = 0.0;
  for (int t = 1; t < spec.frames; ++t) {
    ASSERT_EQ(out[t].verdict, FrameVerdict::Used) << "frame " << t << ": " << to_string(out[t].verdict);
    const ShiftXY truth = sky.true_shift(t);
    const double e2 = std::pow(out[t].shift.dx - truth.dx, 2) + std::pow(out[t].shift.dy - truth.dy, 2);
    sum += e2;
    worst = std::max(worst, std::sqrt(e2));
    largest = std::max({largest, std::fabs(truth.dx), std::fabs(truth.dy)});
    EXPECT_EQ(out[t].shift.flags & (seq::kFlagCoarseEdge | seq::kFlagRefineEdge), 0) << t;
  }
  const double rms = std::sqrt(sum / (spec.frames - 1));
  std::printf("jitter ±20 px (largest %.1f px), --search-radius %d: RMS shift error %.4f px, worst %.4f px\n", largest,
              SequenceSettings{}.search_radius, rms, worst);
  EXPECT_GT(largest, 15.0);
  EXPECT_LE(rms, 0.1);
}

struct GhostReport {
  double deepest = 0;  // the deepest ghost (a fitted PSF's amplitude) at a past position, in noise deviations
  int positions = 0;
};

GhostReport ghosts(const SyntheticSequence& sky, const std::vector<FrameOutcome>& out, int history) {
  GhostReport r;
  for (int t = history; t < sky.spec().frames; ++t) {
    const TargetPoint now = sky.target(t);
    for (int i = t - history; i < t; ++i) {
      const TargetPoint then = sky.target(i);
      // Where the target was in frame i, in frame t's coordinates.
      const double x = then.x - sky.true_shift(i).dx + sky.true_shift(t).dx;
      const double y = then.y - sky.true_shift(i).dy + sky.true_shift(t).dy;
      if (std::hypot(x - now.x, y - now.y) < 6.0 || x < 3 || y < 3 || x > sky.spec().width - 4 ||
          y > sky.spec().height - 4)
        continue;
      ++r.positions;
      const double amplitude = test::psf_amplitude(out[t].whitened_frame, x, y, sky.spec().psf_sigma);
      r.deepest = std::min(r.deepest, amplitude / sky.noise_sigma());
    }
  }
  return r;
}

SyntheticSpec bright_target_sky() {
  SyntheticSpec spec = test::accuracy_sky(30);
  spec.target_brightness = 150.0;  // noise deviations: a ghost of 1/N of it would be 7.5
  spec.target_speed = 2.5;
  return spec;
}

TEST(SequenceHardCases, ABrightMovingTargetLeavesNoGhostInTheHistory) {
  const SyntheticSequence sky(bright_target_sky());
  SequenceSettings removal, kept;
  kept.target_threshold = 0.0;  // the seed's behaviour: the target stays in the history
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> with_removal = test::run_engine(*engine, sky, removal);
  const std::vector<FrameOutcome> without = test::run_engine(*engine, sky, kept);
  const GhostReport removed = ghosts(sky, with_removal, removal.history), left = ghosts(sky, without, kept.history);
  std::printf("target of %.0f noise deviations: deepest ghost %.2f deviations with its removal, %.2f without "
              "(%d past positions)\n",
              sky.spec().target_brightness, removed.deepest, left.deepest, removed.positions);
  ASSERT_GT(removed.positions, 50);
  EXPECT_GE(removed.deepest, -3.0);
  EXPECT_LT(left.deepest, -3.0);  // the check can fail: without the removal the ghosts are there
  // The target itself is still found, and the frames are still whitened to the noise.
  for (int t = removal.history; t < sky.spec().frames; ++t) {
    const TargetPoint target = sky.target(t);
    if (target.inside) {
      EXPECT_GT(test::peak_near(with_removal[t].whitened_frame, target.x, target.y), 0.5 * target.peak) << t;
    }
    EXPECT_LE(noise_ratio(with_removal[t], sky), kBackToNoise) << t;
  }
}

TEST(SequenceHardCases, TheCorrelationMatrixWeightsWhitenTheSkyToTheNoise) {
  const SyntheticSequence sky(test::accuracy_sky());
  SequenceSettings settings;
  settings.weights = WeightMethod::Correlation;
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, sky, settings);
  double worst = 0.0, weakest_target = 1e9;
  for (int t = settings.history; t < sky.spec().frames; ++t) {
    ASSERT_TRUE(out[t].whitened) << t;
    worst = std::max(worst, noise_ratio(out[t], sky));
    const TargetPoint target = sky.target(t);
    if (target.inside)
      weakest_target = std::min(weakest_target, test::peak_near(out[t].whitened_frame, target.x, target.y) /
                                                    test::robust_deviation(out[t].whitened_frame));
  }
  std::printf("correlation weights: whitened within %.3f x the noise, target at least %.2f deviations\n", worst,
              weakest_target);
  EXPECT_LE(worst, kBackToNoise);
  EXPECT_GE(weakest_target, 2.0);
}

TEST(SequenceHardCases, AShiftBeyondHalfTheFrameIsNotMatchedSilently) {
  // Crops of a sky twice as wide; frame 5 looks 70 % of a frame further right: beyond every lag
  // the coarse search tries (half the frame).
  SyntheticSpec wide = test::accuracy_sky(8);
  const int width = wide.width;
  wide.width *= 2;
  const SyntheticSequence sky(wide);
  std::vector<ImageF32> frames;
  for (int t = 0; t < wide.frames; ++t) {
    const ImageF32 big = sky.frame(t);
    const int x0 = t == 5 ? width * 7 / 10 : 0;
    ImageF32 crop(width, wide.height);
    for (int y = 0; y < wide.height; ++y)
      for (int x = 0; x < width; ++x) crop.at(x, y) = big.at(x + x0, y);
    frames.push_back(std::move(crop));
  }
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  SequenceSettings settings;
  settings.history = 4;
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, settings);
  EXPECT_TRUE(left_out(out[5].verdict) || (out[5].shift.flags & seq::kFlagCoarseEdge))
      << to_string(out[5].verdict) << " flags " << out[5].shift.flags << " dx " << out[5].shift.dx;
  for (int t : {4, 6, 7}) EXPECT_EQ(out[t].verdict, FrameVerdict::Used) << t;
}

}  // namespace
}  // namespace gausslab
