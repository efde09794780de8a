// A timed run's frame count (viewer/automated_run.hpp): the frames drawn before the mode's first
// results are drawn but neither counted nor in the frame medians.
#include <gtest/gtest.h>

#include <vector>

#include "gausslab/render/gl_surface.hpp"
#include "viewer/automated_run.hpp"

namespace gausslab {
namespace {

// A surface that is never drawn into (the soak, the only user, is off).
class UnusedSurface : public GlSurface {
 public:
  int width() const override { return 1; }
  int height() const override { return 1; }
  void bind_framebuffer() override {}
  void resize(int, int) override {}
  void present() override {}
  bool offscreen() const override { return true; }

 protected:
  unsigned read_framebuffer() const override { return 0; }
};

// A mode that is starting up (no results yet) for its first `starting_frames` frames.
class StartingMode : public ViewerMode {
 public:
  explicit StartingMode(int starting_frames) : starting_frames_(starting_frames) {}
  void next_frame() { ++frame_; }
  bool starting() const override { return frame_ < starting_frames_; }
  void update(FrameContext&) override {}
  void draw(FrameContext&) override {}
  void open_file(const std::string&) override {}
  std::string window_title() const override { return "test"; }
  bool failed() const override { return false; }
  std::string run_command(const std::string&, const std::string&) override { return {}; }
  int finish_automated(FrameContext&, const std::function<ImageRgba8()>&) override { return 0; }

 private:
  int starting_frames_;
  int frame_ = 0;
};

struct Outcome {
  int frames_drawn = 0;
  std::vector<double> counted;  // the intervals counted, each the number of the frame it ends
};

// The frame loop of Viewer::run, each interval the frame's own number (so the counted ones say which).
Outcome run(int frames, int starting_frames) {
  ViewerOptions options;
  options.frames = frames;
  options.offscreen = true;
  AutomatedRun automated(options, {});
  StartingMode mode(starting_frames);
  UnusedSurface surface;
  RollingMedian frame_ms(1000);
  Outcome outcome;
  for (int frame = 0;; ++frame) {
    if (automated.frames_done(frame)) break;
    const std::size_t before = frame_ms.size();
    EXPECT_TRUE(automated.before_frame(frame, 0.001 * frame, frame, mode, surface, frame_ms));
    if (frame_ms.size() > before) outcome.counted.push_back(frame_ms.latest());
    ++outcome.frames_drawn;
    mode.next_frame();  // the frame is drawn: its results (if any) are in
    if (frame > 10'000) break;
  }
  return outcome;
}

TEST(AutomatedRun, FramesBeforeTheFirstResultsAreDrawnButNotCounted) {
  // The mode starts for 50 frames (a calibration, a long prepare): none of them is counted, and
  // the run still counts its 10 frames after that.
  const Outcome slow_start = run(10, 50);
  ASSERT_FALSE(slow_start.counted.empty());
  EXPECT_GT(slow_start.counted.front(), 50.0) << "a frame drawn before the first results was counted";
  EXPECT_EQ(slow_start.counted.size(), 9u);  // the intervals between 10 frames drawn with results
  EXPECT_EQ(slow_start.frames_drawn, 50 + 10);  // the 50 start-up frames and 10 with results
}

TEST(AutomatedRun, AModeWithResultsAtOnceCountsEveryFrameAfterTheFirst) {
  const Outcome quick = run(10, 0);
  ASSERT_FALSE(quick.counted.empty());
  EXPECT_EQ(quick.counted.front(), 1.0);  // frame 0's interval is no frame's
  EXPECT_EQ(quick.counted.size(), 9u);
  EXPECT_EQ(quick.frames_drawn, 10);
}

}  // namespace
}  // namespace gausslab
