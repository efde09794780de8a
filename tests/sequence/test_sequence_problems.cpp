// Frames the engine cannot use: a flat frame has no shift (u·w - v² = 0) and is left out of the
// history; a flat first frame cannot be the reference, so the next one is. The run goes on.
#include <gtest/gtest.h>

#include <stdexcept>

#include "gausslab/sequence/sequence_engine.hpp"
#include "sequence_test_kit.hpp"

namespace gausslab {
namespace {

std::vector<ImageF32> sky_frames(const SyntheticSequence& sky) {
  std::vector<ImageF32> frames;
  for (int t = 0; t < sky.spec().frames; ++t) frames.push_back(sky.frame(t));
  return frames;
}

SequenceSettings short_history() {
  SequenceSettings s;
  s.history = 6;
  return s;
}

TEST(SequenceProblems, AFlatFrameGetsNoShiftIsNotWhitenedAndLeavesTheHistory) {
  const SyntheticSequence sky(test::accuracy_sky(14));
  std::vector<ImageF32> frames = sky_frames(sky);
  frames[8] = ImageF32(frames[8].width(), frames[8].height(), 0.2f);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, short_history());
  ASSERT_EQ(out.size(), frames.size());
  EXPECT_EQ(out[8].shift.status, static_cast<int>(seq::ShiftStatus::Degenerate));
  EXPECT_FALSE(out[8].whitened);
  for (float v : out[8].whitened_frame.pixels()) ASSERT_EQ(v, 0.0f);
  // The frames after it are still whitened, from the other five history frames.
  for (int t = 9; t < 14; ++t) {
    EXPECT_EQ(out[t].shift.status, static_cast<int>(seq::ShiftStatus::Estimated)) << t;
    EXPECT_TRUE(out[t].whitened) << t;
    EXPECT_LE(test::robust_deviation(out[t].whitened_frame), 1.5 * sky.noise_sigma()) << t;
  }
}

TEST(SequenceProblems, AFlatFirstFrameIsNotTheReferenceTheNextOneIs) {
  const SyntheticSequence sky(test::accuracy_sky(10));
  std::vector<ImageF32> frames = sky_frames(sky);
  frames[0] = ImageF32(frames[0].width(), frames[0].height(), 0.5f);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> out = test::run_engine(*engine, frames, short_history());
  EXPECT_EQ(out[0].shift.status, static_cast<int>(seq::ShiftStatus::Degenerate));
  EXPECT_TRUE(out[0].reference_candidate);
  EXPECT_EQ(out[1].shift.status, static_cast<int>(seq::ShiftStatus::Reference));
  EXPECT_TRUE(out[1].reference_candidate);
  EXPECT_FALSE(out[2].reference_candidate);
  // Shifts are now relative to frame 1.
  for (int t = 2; t < 10; ++t) {
    const ShiftXY truth = sky.true_shift(t), ref = sky.true_shift(1);
    EXPECT_NEAR(out[t].shift.dx, truth.dx - ref.dx, 0.1) << t;
    EXPECT_NEAR(out[t].shift.dy, truth.dy - ref.dy, 0.1) << t;
  }
}

TEST(SequenceProblems, AFrameOfTheWrongSizeIsRefusedWithTheReason) {
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  SequenceSetup setup;
  setup.width = 32;
  setup.height = 32;
  engine->begin(setup);
  const ImageF32 wrong(31, 32);
  EXPECT_THROW(engine->push(wrong.view(), nullptr), std::invalid_argument);
}

TEST(SequenceProblems, BadSettingsAndTinyFramesAreRefusedWithTheReason) {
  SequenceSetup setup;
  setup.width = 4;
  setup.height = 64;
  EXPECT_NE(validate(setup, SequenceBackend::Cpu).find("too small"), std::string::npos);
  setup.width = 64;
  setup.settings.gamma = 0.0;
  EXPECT_NE(validate(setup, SequenceBackend::Cpu).find("--gamma"), std::string::npos);
  setup.settings.gamma = 0.01;
  setup.settings.history = 0;
  EXPECT_NE(validate(setup, SequenceBackend::Cpu).find("--history"), std::string::npos);
  setup.settings.history = 20;
  setup.settings.degree = 9;
  EXPECT_NE(validate(setup, SequenceBackend::Cpu).find("--degree"), std::string::npos);
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  EXPECT_THROW(engine->begin(setup), std::invalid_argument);
}

}  // namespace
}  // namespace gausslab
