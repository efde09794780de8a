#pragma once
// --script FILE played in the viewer (script.hpp reads it): before each frame, the steps whose time
// has come run through the mode; a 'wait' holds the schedule until the mode's work is all in (the
// steps after it keep their spacing from it), 'end' stops. The frames' times and the step each came
// after make the script's report (frame-time percentiles and the slow frames near a step).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "viewer/script.hpp"
#include "viewer/viewer_mode.hpp"

namespace gausslab {

class ScriptPlayer {
 public:
  explicit ScriptPlayer(std::vector<ScriptStep> steps) : steps_(std::move(steps)) {}

  bool empty() const { return steps_.empty(); }
  // Runs the steps due at `elapsed_s` (seconds since the first frame); false once the script has
  // ended (its 'end', or its last step done and no wait in progress).
  bool run_due_steps(double elapsed_s, ViewerMode& mode);
  // A counted frame's time (the frames after the start-up's first one).
  void add_frame_ms(double ms) { frame_ms_.push_back(ms); }
  // "script step 3 of 11".
  std::string progress() const;
  // The report line and its slow frames (script.hpp: describe).
  std::string report() const;

 private:
  std::vector<ScriptStep> steps_;
  std::size_t next_ = 0;
  bool waiting_ = false;
  // How long the script's waits have held it back: the steps after a 'wait' keep their spacing from
  // it (two steps half a second apart stay half a second apart however long the wait took).
  double delay_s_ = 0.0;
  double wait_began_s_ = 0.0;  // the schedule's time of the wait in progress
  std::vector<double> frame_ms_;
  std::vector<std::pair<std::size_t, std::string>> step_frames_;  // the frame each step ran at
};

}  // namespace gausslab
