#pragma once
// The comparison's timings as the panels show them: the timing graph's history (each stage of A, B
// and GL over the last 300 frames it ran in, and the frame time) and the overlay's readouts, the
// stage medians refreshed a few times a second so that they can be read.
#include <chrono>
#include <vector>

#include "comparison/timing_history.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

class GlTimer;
class RollingMedian;

struct OverlayTimings {
  std::vector<StageTiming> a, b, gl;  // medians per stage (CUDA events, host clock, GL queries)
  double frame_ms = 0;                // median wall-clock frame time
  double method_ms = 0;               // median of method A's own stages
};

class ComparisonTiming {
 public:
  static constexpr int kHistoryFrames = 300;

  // The frame's stages into the history: a timer's only when it completed a frame since it was
  // last read (`seen`: that timer's count so far); the frame time.
  void record(const char* prefix, const StageTimer& timer, int& seen);
  void record_gl(const GlTimer& gl, const RollingMedian& frame_ms);
  // The overlay's readouts, at most every 250 ms (b: null when no view shows B).
  void refresh_overlay(const StageTimer& a, const StageTimer* b, const GlTimer& gl, const RollingMedian& frame_ms);
  // The next refresh_overlay refreshes (the untimed frames of an automated run's end show the final
  // medians).
  void refresh_soon() { last_refresh_ = {}; }
  const OverlayTimings& overlay() const { return overlay_; }
  const TimingHistory& history() const { return history_; }
  TimingHistory& history() { return history_; }

 private:
  TimingHistory history_{kHistoryFrames};
  OverlayTimings overlay_;
  int seen_gl_ = 0;
  std::chrono::steady_clock::time_point last_refresh_{};
};

}  // namespace gausslab
