#pragma once
// Where a slow frame's host time went: with GAUSSLAB_FRAME_TRACE_MS=N in the environment, every
// frame longer than N ms prints one line "gausslab: frame trace F: T ms: section=ms ..." to stderr
// (sections marked with FrameTrace::mark in the frame loop and the mode's update). Off (no clock
// reads) without the variable. A diagnostic for the H100 sessions: time spent waiting inside a
// section names the wait (the pacer's fence, a map, a prepare).
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace gausslab {

class FrameTrace {
 public:
  static FrameTrace& instance();
  bool enabled() const { return limit_ms_ > 0; }
  void begin_frame();
  // The time since the previous mark (or begin_frame) is charged to `section`.
  void mark(const char* section);
  void end_frame(long long frame);
  // A worker's line, printed at once with the time since start (when tracing is on).
  void note(const std::string& text) const;

 private:
  FrameTrace();
  using Clock = std::chrono::steady_clock;
  double limit_ms_ = 0;
  Clock::time_point origin_ = Clock::now();
  Clock::time_point start_, last_;
  std::vector<std::pair<const char*, double>> sections_;
};

}  // namespace gausslab
