#pragma once
// Where a slow frame's host time went: with GAUSSLAB_FRAME_TRACE_MS=N in the environment, every
// frame longer than N ms prints one line "gausslab: frame trace F at MS (mono=MS): T ms: section=ms ..."
// to stderr (sections marked with FrameTrace::mark in the frame loop and the mode's update, those of
// 0.5 ms or more, or of GAUSSLAB_FRAME_TRACE_SECTION_MS or more when it is set). Off (no clock
// reads) without the variable. A diagnostic for the H100 sessions: time spent waiting inside a
// section names the wait (the pacer's fence, a map, a prepare). Each section also shows the UI
// thread's own CPU time in it, and the frame its context switches: a section whose wall time is long
// but CPU time short waited (voluntary switches: a lock or a sync) or was not given a core
// (involuntary switches: the other threads had them all). "mono" is the frame's start on
// CLOCK_MONOTONIC (steady_clock here), the clock of tools/cuda_hold_trace, which names the CUDA call
// that held a thread.
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
  double section_ms_ = 0.5;  // sections shorter than this are left out of a frame's line
  Clock::time_point origin_ = Clock::now();
  struct Section {
    const char* name;
    double wall_ms;
    double cpu_ms;
  };
  Clock::time_point start_, last_;
  double last_cpu_ms_ = 0;
  long start_voluntary_ = 0, start_involuntary_ = 0;
  std::vector<Section> sections_;
};

}  // namespace gausslab
