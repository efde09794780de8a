// The stage timer with host-only stages (no CUDA device needed): order, last values, medians.
#include <gtest/gtest.h>

#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {
namespace {

// Runs `frames` frames, frame i (1-based) recording "load" = i ms and "filter" = 10 i ms.
void record_frames(StageTimer& timer, int frames) {
  for (int i = 1; i <= frames; ++i) {
    timer.begin_frame();
    timer.record_host("load", i);
    timer.record_host("filter", 10.0 * i);
    timer.end_frame();
  }
  timer.flush();
}

TEST(StageTimerHost, KeepsOrderLastValuesAndMedians) {
  StageTimer timer;
  record_frames(timer, 5);
  EXPECT_EQ(timer.completed_frames(), 5);
  const std::vector<StageTiming> stages = timer.stages();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].name, "load");
  EXPECT_EQ(stages[1].name, "filter");
  EXPECT_DOUBLE_EQ(stages[0].last_ms, 5.0);
  EXPECT_DOUBLE_EQ(stages[1].last_ms, 50.0);
  EXPECT_DOUBLE_EQ(stages[0].median_ms, 3.0);   // median of 1..5
  EXPECT_DOUBLE_EQ(stages[1].median_ms, 30.0);
  EXPECT_DOUBLE_EQ(timer.frame_median_ms(), 33.0);  // frame totals 11, 22, ..., 55
}

TEST(StageTimerHost, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  StageTimer timer;
  record_frames(timer, 4);
  const std::vector<StageTiming> stages = timer.stages();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_DOUBLE_EQ(stages[0].median_ms, 2.5);
  EXPECT_DOUBLE_EQ(stages[1].median_ms, 25.0);
}

TEST(StageTimerHost, HistoryIsBoundedAndCanBeReset) {
  StageTimer timer(/*ring_frames=*/4, /*history=*/3);
  record_frames(timer, 10);
  EXPECT_EQ(timer.completed_frames(), 10);
  std::vector<StageTiming> stages = timer.stages();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_DOUBLE_EQ(stages[0].median_ms, 9.0);  // the last three frames: 8, 9, 10
  timer.reset_history();
  EXPECT_TRUE(timer.stages().empty());
  EXPECT_EQ(timer.frame_median_ms(), 0.0);
}

TEST(StageTimerHost, PollHarvestsHostOnlyFramesWithoutFlush) {
  StageTimer timer;
  timer.begin_frame();
  timer.record_host("save", 4.0);
  timer.end_frame();
  timer.poll();
  ASSERT_EQ(timer.completed_frames(), 1);
  EXPECT_EQ(timer.stages().at(0).name, "save");
}

TEST(StageTimerHost, NothingBeforeTheFirstFrameAndNoStagesOutsideAFrame) {
  StageTimer timer;
  EXPECT_TRUE(timer.stages().empty());
  EXPECT_EQ(timer.frame_median_ms(), 0.0);
  EXPECT_EQ(timer.completed_frames(), 0);
  EXPECT_THROW(timer.record_host("load", 1.0), std::logic_error);
  EXPECT_THROW(timer.begin("rows", nullptr), std::logic_error);
}

}  // namespace
}  // namespace gausslab
