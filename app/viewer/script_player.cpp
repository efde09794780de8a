#include "viewer/script_player.hpp"

#include <algorithm>
#include <cstdio>

namespace gausslab {

bool ScriptPlayer::run_due_steps(double elapsed_s, ViewerMode& mode) {
  if (waiting_) {
    if (mode.busy()) return true;
    waiting_ = false;
    mode.resume();
    delay_s_ = std::max(delay_s_, elapsed_s - wait_began_s_);
  }
  while (next_ < steps_.size() && steps_[next_].at_s + delay_s_ <= elapsed_s) {
    const ScriptStep& step = steps_[next_++];
    step_frames_.emplace_back(frame_ms_.size(), step.text());
    if (step.command == "end") return false;
    if (step.command == "wait") {
      // Settled while it waits: a scripted run reprocesses every frame, and two CPU slots whose
      // jobs take turns on the worker would keep it busy at every frame's start for ever.
      mode.settle();
      waiting_ = true;
      wait_began_s_ = step.at_s;
      return true;
    }
    if (const std::string problem = mode.run_command(step.command, step.argument); !problem.empty())
      std::fprintf(stderr, "gausslab: script line %d ('%s'): %s\n", step.line, step.text().c_str(), problem.c_str());
  }
  return next_ < steps_.size() || waiting_;
}

std::string ScriptPlayer::progress() const {
  return "script step " + std::to_string(next_) + " of " + std::to_string(steps_.size());
}

std::string ScriptPlayer::report() const { return describe(frame_time_report(frame_ms_, step_frames_)); }

}  // namespace gausslab
