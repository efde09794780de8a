// The accuracy criteria on the CPU engine (the reference; the GPU engine is held to it in
// tests/sequence/test_gpu_sequence.cpp): a synthetic sky with jitter up to ±2 px and noise 0.5 %
// of the background.
#include <gtest/gtest.h>

#include <cmath>

#include "gausslab/sequence/sequence_engine.hpp"
#include "sequence_test_kit.hpp"

namespace gausslab {
namespace {

class SequenceAccuracy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sky_ = new SyntheticSequence(test::accuracy_sky());
    auto engine = create_sequence_engine(SequenceBackend::Cpu);
    outcomes_ = new std::vector<FrameOutcome>(test::run_engine(*engine, *sky_, settings()));
  }
  static void TearDownTestSuite() {
    delete outcomes_;
    delete sky_;
  }
  static SequenceSettings settings() { return SequenceSettings{}; }  // history 20, degree 2, gamma 0.01
  static SyntheticSequence* sky_;
  static std::vector<FrameOutcome>* outcomes_;
};
SyntheticSequence* SequenceAccuracy::sky_ = nullptr;
std::vector<FrameOutcome>* SequenceAccuracy::outcomes_ = nullptr;

TEST_F(SequenceAccuracy, EveryFrameGetsAnOutcomeInOrder) {
  ASSERT_EQ(outcomes_->size(), static_cast<std::size_t>(sky_->spec().frames));
  for (std::size_t t = 0; t < outcomes_->size(); ++t) EXPECT_EQ((*outcomes_)[t].index, static_cast<long long>(t));
  EXPECT_EQ((*outcomes_)[0].shift.status, static_cast<int>(seq::ShiftStatus::Reference));
}

TEST_F(SequenceAccuracy, RmsShiftErrorIsAtMostFiveHundredthsOfAPixel) {
  double sum = 0.0, worst = 0.0;
  int n = 0;
  for (int t = 1; t < sky_->spec().frames; ++t) {
    const FrameOutcome& o = (*outcomes_)[t];
    ASSERT_EQ(o.shift.status, static_cast<int>(seq::ShiftStatus::Estimated)) << "frame " << t;
    const ShiftXY truth = sky_->true_shift(t);
    const double e2 = std::pow(o.shift.dx - truth.dx, 2) + std::pow(o.shift.dy - truth.dy, 2);
    sum += e2;
    worst = std::max(worst, std::sqrt(e2));
    ++n;
  }
  const double rms = std::sqrt(sum / n);
  std::printf("RMS shift error %.4f px (worst %.4f px) over %d frames, jitter ±%.1f px\n", rms, worst, n,
              sky_->spec().jitter);
  EXPECT_LE(rms, 0.05);
}

TEST_F(SequenceAccuracy, WhitenedFramesAreZeroUntilTheHistoryIsFull) {
  for (int t = 0; t < settings().history; ++t) {
    const FrameOutcome& o = (*outcomes_)[t];
    EXPECT_FALSE(o.whitened) << "frame " << t;
    for (float v : o.whitened_frame.pixels()) ASSERT_EQ(v, 0.0f) << "frame " << t;
  }
}

TEST_F(SequenceAccuracy, WhitenedNoiseIsAtMostOnePointThreeTimesTheAddedNoise) {
  double worst = 0.0;
  for (int t = settings().history; t < sky_->spec().frames; ++t) {
    const FrameOutcome& o = (*outcomes_)[t];
    ASSERT_TRUE(o.whitened) << "frame " << t;
    worst = std::max(worst, test::robust_deviation(o.whitened_frame) / sky_->noise_sigma());
  }
  std::printf("whitened robust deviation: at most %.3f × the added noise's\n", worst);
  EXPECT_LE(worst, 1.3);
}

TEST_F(SequenceAccuracy, TheMovingTargetStandsOutWhereTheRawFrameHidesIt) {
  int frames = 0;
  double weakest = 1e9, most_visible_raw = 0.0;
  for (int t = settings().history; t < sky_->spec().frames; ++t) {
    const TargetPoint target = sky_->target(t);
    if (!target.inside) continue;
    ++frames;
    const ImageF32& whitened = (*outcomes_)[t].whitened_frame;
    weakest = std::min(weakest, test::peak_near(whitened, target.x, target.y) / test::robust_deviation(whitened));
    most_visible_raw = std::max(most_visible_raw, target.peak / test::robust_deviation(sky_->frame(t)));
  }
  std::printf("target over %d frames: at least %.2f robust deviations in the whitened frames; its peak is at most "
              "%.2f of the raw frames' deviation\n",
              frames, weakest, most_visible_raw);
  ASSERT_GT(frames, 10);
  EXPECT_GE(weakest, 2.0);
  EXPECT_LT(most_visible_raw, 1.0);  // its whole peak is within the raw frame's spread: invisible there
}

TEST_F(SequenceAccuracy, WhitenedFramesHaveNoBias) {
  // The weights sum to one: a smooth background leaves no offset (a leak would show as a mean far
  // from zero against the noise).
  for (int t = settings().history; t < sky_->spec().frames; ++t) {
    const ImageF32& w = (*outcomes_)[t].whitened_frame;
    double sum = 0.0;
    for (float v : w.pixels()) sum += v;
    EXPECT_LT(std::fabs(sum / w.pixel_count()), 0.2 * sky_->noise_sigma()) << "frame " << t;
  }
}

TEST(SequenceShifts, LargeShiftsUpToEightPixelsAreFound) {
  SyntheticSpec spec = test::accuracy_sky(12);
  spec.jitter = 8.0;
  spec.width = 192;
  spec.height = 144;
  const SyntheticSequence sky(spec);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  SequenceSettings settings;
  settings.history = 4;
  const std::vector<FrameOutcome> outcomes = test::run_engine(*engine, sky, settings);
  double worst = 0.0;
  for (int t = 1; t < spec.frames; ++t) {
    const ShiftXY truth = sky.true_shift(t);
    ASSERT_EQ(outcomes[t].shift.status, static_cast<int>(seq::ShiftStatus::Estimated));
    worst = std::max({worst, std::fabs(outcomes[t].shift.dx - truth.dx), std::fabs(outcomes[t].shift.dy - truth.dy)});
  }
  std::printf("jitter ±8 px: worst shift error %.4f px\n", worst);
  EXPECT_LT(worst, 0.1);
}

}  // namespace
}  // namespace gausslab
