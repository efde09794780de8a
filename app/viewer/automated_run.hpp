#pragma once
// What a run does around the frames the frame loop draws (viewer.hpp), so that the loop is the loop:
//   --frames N  counts N frames from the mode's first results on (the start-up's frames are drawn but
//               not in the medians), then stops;
//   --script    the script's due steps before each frame (script_player.hpp), until it ends;
//   --soak N    a step of the mode's soak cycle every few frames, memory measured (soak_run.hpp);
//   automated   a progress line every few seconds on stderr; after the mode's report, the script's
//               and the soak's.
// Interactive runs count every frame after the first and do nothing else.
#include <chrono>
#include <string>
#include <vector>

#include "viewer/run_report.hpp"
#include "viewer/script_player.hpp"
#include "viewer/soak_run.hpp"
#include "viewer/viewer_mode.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

// An automated run gives up waiting for results after this.
inline constexpr double kSettleLimitSeconds = 900.0;

class AutomatedRun {
 public:
  AutomatedRun(const ViewerOptions& options, std::vector<ScriptStep> script);

  bool automated() const { return frames_ > 0 || !script_.empty(); }
  bool scripted() const { return !script_.empty(); }
  // A timed run's N frames are done.
  bool frames_done(int frame) const { return !scripted() && automated() && frame - counted_from_ >= frames_; }
  // Before frame `frame` (elapsed_s since the first began, interval_ms since the previous one):
  // counts the frame's time into frame_ms unless the run still starts up, runs the script's due
  // steps and the soak's step. False when the script has ended.
  bool before_frame(int frame, double elapsed_s, double interval_ms, ViewerMode& mode, GlSurface& surface,
                    RollingMedian& frame_ms);
  // After the frame: false when an automated run must stop (the mode failed); prints progress.
  bool after_frame(int frame, ViewerMode& mode);
  // At most every few seconds: "gausslab: WHAT; <the mode's progress>".
  void print_progress(const std::string& what, const ViewerMode& mode);
  // After the mode's own report: the script's frame times and the soak's memory.
  void print_reports(long long frames_drawn) const;

 private:
  int frames_;
  ScriptPlayer script_;
  SoakRun soak_;
  int counted_from_ = 0;  // a timed run counts its frames from the first results on
  bool counting_ = false;  // the start-up is over: counted_from_ stays where it is
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace gausslab
