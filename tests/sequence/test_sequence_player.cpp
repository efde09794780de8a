// The viewer's sequence player on the CPU engine (no GL, no GPU): playback, loop, restart on new
// settings, skipped frames, the shift history, and the displays' mapping.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "gausslab/sequence/frame_io.hpp"
#include "gausslab/sequence/sequence_player.hpp"
#include "sequence_test_kit.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

SyntheticSpec small_sky(int frames) {
  SyntheticSpec s = test::accuracy_sky(frames);
  s.width = 96;
  s.height = 64;
  return s;
}

PlayerSettings short_history(int n) {
  PlayerSettings p;
  p.settings.history = n;
  return p;
}

TEST(SequencePlayer, OpeningShowsTheFirstFrameAndPlayingFillsTheHistory) {
  SequencePlayer player(SequenceBackend::Cpu);
  player.configure(short_history(4), nullptr);
  const SyntheticSequence sky(small_sky(12));
  player.open(open_player_input("synthetic", sky.spec()), "synthetic", nullptr);
  EXPECT_EQ(player.width(), 96);
  EXPECT_EQ(player.height(), 64);
  EXPECT_EQ(player.current_index(), 0);
  EXPECT_TRUE(player.display_a().has_frame());
  EXPECT_FALSE(player.history_full());
  for (int t = 1; t < 12; ++t) ASSERT_TRUE(player.advance(false, nullptr)) << t;
  EXPECT_TRUE(player.history_full());
  EXPECT_FALSE(player.advance(false, nullptr));  // the end, no loop
  player.collect(true);
  for (int t = 0; t < 12; ++t) {
    EXPECT_NEAR(player.dx()[t], sky.true_shift(t).dx, 0.06) << t;
    EXPECT_NEAR(player.dy()[t], sky.true_shift(t).dy, 0.06) << t;
  }
  EXPECT_TRUE(player.advance(true, nullptr));  // loop: the first frame again, the history runs on
  EXPECT_EQ(player.current_index(), 0);
  EXPECT_EQ(player.frames_pushed(), 13);
}

TEST(SequencePlayer, NewSettingsStartTheSequenceOver) {
  SequencePlayer player(SequenceBackend::Cpu);
  player.open(open_player_input("synthetic", small_sky(8)), "synthetic", nullptr);
  for (int t = 0; t < 5; ++t) player.advance(false, nullptr);
  player.configure(short_history(3), nullptr);
  EXPECT_EQ(player.current_index(), 0);
  EXPECT_EQ(player.frames_pushed(), 1);
  EXPECT_EQ(player.settings().settings.history, 3);
  EXPECT_TRUE(std::isnan(player.dx()[5]));  // the plot starts over too
}

TEST(SequencePlayer, UnsuitableSettingsAreRefusedAndTheOldOnesStay) {
  SequencePlayer player(SequenceBackend::Cpu);
  player.open(open_player_input("synthetic", small_sky(6)), "synthetic", nullptr);
  PlayerSettings bad = short_history(5);
  bad.prefilter_id = "no_such_method";
  EXPECT_THROW(player.configure(bad, nullptr), std::invalid_argument);
  bad.prefilter_id = "separable_shared";  // a GPU method on the CPU engine
  bad.prefilter_params.sigma = 1.0;
  try {
    player.configure(bad, nullptr);
    FAIL() << "a GPU pre-filter was accepted on the CPU";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("CPU"), std::string::npos) << error.what();
  }
  PlayerSettings gamma = short_history(5);
  gamma.settings.gamma = -1;
  EXPECT_THROW(player.configure(gamma, nullptr), std::invalid_argument);
  EXPECT_EQ(player.settings().settings.history, SequenceSettings{}.history);
  PlayerSettings ok = short_history(5);
  ok.prefilter_id = "cpu_openmp";
  ok.prefilter_params.sigma = 1.0;
  EXPECT_NO_THROW(player.configure(ok, nullptr));
}

TEST(SequencePlayer, UnreadableAndOddSizedFramesAreSkippedWithAMessage) {
  test::ScratchFolder scratch;
  const SyntheticSequence sky(small_sky(5));
  for (int t = 0; t < 5; ++t) save_grey_png16(scratch.file("f" + std::to_string(t) + ".png"), sky.frame(t), Overwrite::Never);
  std::ofstream(scratch.file("f1.png"), std::ios::trunc) << "broken";
  save_grey_png16(scratch.file("f3.png"), ImageF32(20, 20, 0.5f), Overwrite::Allowed);
  SequencePlayer player(SequenceBackend::Cpu);
  player.open(open_player_input(scratch.path().string(), {}), "frames", nullptr);
  EXPECT_EQ(player.current_index(), 0);
  ASSERT_TRUE(player.advance(false, nullptr));
  EXPECT_EQ(player.current_index(), 2);
  EXPECT_NE(player.status().find("f1.png"), std::string::npos) << player.status();
  ASSERT_TRUE(player.advance(false, nullptr));
  EXPECT_EQ(player.current_index(), 4);
  EXPECT_NE(player.status().find("20x20"), std::string::npos) << player.status();
}

TEST(SequencePlayer, AFrameThatDoesNotBelongIsNamedAndTheDisplayShowsFramesAsRead) {
  test::ScratchFolder scratch;
  SyntheticSpec spec = small_sky(8);
  spec.target_brightness = 150.0;  // removed from the history, still shown in A
  const SyntheticSequence sky(spec);
  for (int t = 0; t < 8; ++t)
    save_grey_png16(scratch.file("f" + std::to_string(t) + ".png"), t == 5 ? test::garbage_frame(96, 64, 2) : sky.frame(t),
                    Overwrite::Never);
  SequencePlayer player(SequenceBackend::Cpu);
  player.configure(short_history(4), nullptr);
  player.open(open_player_input(scratch.path().string(), {}), "frames", nullptr);
  for (int t = 1; t < 8; ++t) ASSERT_TRUE(player.advance(false, nullptr)) << t;
  player.collect(true);
  EXPECT_TRUE(std::isnan(player.dx()[5]));
  EXPECT_FALSE(std::isnan(player.dx()[6]));
  // The status names the last frame that did not belong.
  EXPECT_NE(player.status().find("frame 5"), std::string::npos) << player.status();
  EXPECT_NE(player.status().find("left out"), std::string::npos) << player.status();
  // A shows frame 7 as read: its target is there (white), though the history holds it replaced by
  // its prediction (the sky there: dark grey).
  ImageRgba8 a(96, 64);
  const ImageRgba8 source(96, 64);
  player.display_a().prepare({96, 64, PixelFormat::Rgba8, {}});
  player.display_a().run(source.view(), a.view(), nullptr, nullptr);
  const TargetPoint target = sky.target(7);
  ASSERT_TRUE(target.inside);
  EXPECT_GT(a.at(static_cast<int>(std::lround(target.x)), static_cast<int>(std::lround(target.y))).r, 200);
}

TEST(SequencePlayer, AnInputWithoutAReadableFrameIsRefusedAndTheOldOneStays) {
  test::ScratchFolder scratch;
  std::ofstream(scratch.file("a.png")) << "broken";
  SequencePlayer player(SequenceBackend::Cpu);
  player.open(open_player_input("synthetic", small_sky(4)), "synthetic", nullptr);
  EXPECT_THROW(player.open(open_player_input(scratch.path().string(), {}), "broken", nullptr), SequenceInputError);
  EXPECT_EQ(player.name(), "synthetic");
  EXPECT_TRUE(player.advance(false, nullptr));
  EXPECT_THROW(open_player_input(scratch.file("missing"), {}), SequenceInputError);
}

TEST(SequencePlayer, TheDisplaysMapTheFrameAndTheWhitenedFrame) {
  SequencePlayer player(SequenceBackend::Cpu);
  player.configure(short_history(2), nullptr);
  player.open(open_player_input("synthetic", small_sky(6)), "synthetic", nullptr);
  for (int t = 0; t < 4; ++t) player.advance(false, nullptr);
  player.set_display(false, 4.0);
  ImageRgba8 a(96, 64), b(96, 64);
  const ImageRgba8 source(96, 64);
  const FilterProblem problem{96, 64, PixelFormat::Rgba8, {}};
  player.display_a().prepare(problem);
  player.display_b().prepare(problem);
  player.display_a().run(source.view(), a.view(), nullptr, nullptr);
  player.display_b().run(source.view(), b.view(), nullptr, nullptr);
  // A: stretched between the 1st and 99.5th percentile; B: centred on mid grey.
  double mean_b = 0;
  int dark_a = 0, bright_a = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 96; ++x) {
      mean_b += b.at(x, y).r;
      dark_a += a.at(x, y).r < 10;
      bright_a += a.at(x, y).r > 245;
      ASSERT_EQ(a.at(x, y).a, 255);
    }
  EXPECT_NEAR(mean_b / (96 * 64), 127.5, 4.0);
  EXPECT_GT(dark_a, 0);
  EXPECT_GT(bright_a, 0);
  EXPECT_GT(player.noise_estimate(), 0.5 * 0.001);
  EXPECT_LT(player.noise_estimate(), 2.0 * 0.001);
}

}  // namespace
}  // namespace gausslab
