#pragma once
// --script FILE: a list of timed actions replayed in the viewer, for scripted sessions and tests.
// One line per step, `SECONDS COMMAND [ARGUMENT]`, seconds from the first frame, in order; '#'
// starts a comment. COMMAND is an action's name from the action table (`gausslab --help`: e.g.
// next_view, blink, save_a; method_a N / method_b N take the method's place 1..9) or one of
//   a ID|original|exact     b ID|original|exact     sigma S     border NAME     view a|b|split|diff
//   gain G                  size WxH|original       zoom Z      look X Y (centre on a picture point)
//   mouse X Y (window pixels; offscreen runs have no mouse)   expand NAME / collapse NAME (panel
//   sections: picture, slots, filter, view, numbers, timing, machine, keys)   compare_all_close
//   display SETTING VALUE (the display transform, as its options: display exposure -1, display
//   range 0.1,99.9, display channel luminance, display colour_map on; viewer/display_options.hpp)
//   wait  (until every result and number is in)     end (stop here; the run also ends after the
//   last step once all is in)
// At the end the viewer prints frame-time percentiles and every frame longer than twice the median
// that came within a few frames of a step (a switch that cost a frame).
#include <string>
#include <vector>

namespace gausslab {

struct ScriptStep {
  double at_s = 0;
  std::string command;
  std::string argument;
  int line = 0;
  std::string text() const { return argument.empty() ? command : command + " " + argument; }
};

// Throws UsageError naming the file, the line and the problem.
std::vector<ScriptStep> parse_script(const std::string& text, const std::string& name);
std::vector<ScriptStep> load_script(const std::string& path);

struct FrameTimeReport {
  std::size_t frames = 0;
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
  struct Slow {
    std::size_t frame;
    double ms;
    std::string after;  // the step that came just before it
  };
  // (Frame 0, the start-up frame, counts in the percentiles and max only: it is no step's.)
  // Frames within `window` frames after a step slower than twice the run's median, twice the
  // median of the frames under the step's new setting, and the p99 of the frames under the setting
  // before it.
  std::vector<Slow> slow_after_step;
  // Frames over the first two but not the last: as slow as frames the previous setting already had
  // without a switch (the step's frame waits for the GPU work sent before the step).
  std::vector<Slow> as_slow_before_step;
  // Stricter, the literal rule: frames within `window` frames after a step longer than twice
  // the run's median, whatever the new setting's own median is.
  std::vector<Slow> over_2x_p50_after_step;
};

// frame_ms[i]: the time of frame i; step_frames: the frame at which each step ran (with its text).
FrameTimeReport frame_time_report(const std::vector<double>& frame_ms,
                                  const std::vector<std::pair<std::size_t, std::string>>& step_frames,
                                  std::size_t window = 4);

// "gausslab: script frames=612 p50_ms=8.31 p90_ms=9.02 p99_ms=14.1 max_ms=19.5 slow_switch_frames=0
// over_2x_p50_near_steps=0 as_slow_before_step=0" plus one line per slow frame ("slow frame ..."),
// per frame over 2x the p50 near a step ("frame over 2x p50 ...") and per frame as slow as before
// its step ("frame as slow as before the step ...").
std::string describe(const FrameTimeReport& report);

}  // namespace gausslab
