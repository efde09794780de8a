#include "comparison/comparison_timing.hpp"

#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "viewer/run_report.hpp"

namespace gausslab {

namespace {

double sum_of_method_stages(const std::vector<StageTiming>& stages) {
  double total = 0;
  for (const StageTiming& stage : stages)
    if (!is_pipeline_stage(stage.name)) total += stage.median_ms;
  return total;
}

}  // namespace

void ComparisonTiming::record(const char* prefix, const StageTimer& timer, int& seen) {
  if (timer.completed_frames() == seen) return;
  seen = timer.completed_frames();
  for (const StageTiming& stage : timer.stages()) history_.add(prefix + stage.name, stage.last_ms);
}

void ComparisonTiming::record_gl(const GlTimer& gl, const RollingMedian& frame_ms) {
  if (gl.completed_frames() != seen_gl_) {
    seen_gl_ = gl.completed_frames();
    for (const StageTiming& stage : gl.stages()) history_.add("GL " + stage.name, stage.last_ms);
  }
  if (frame_ms.size() > 0) history_.add("frame", frame_ms.latest());
}

void ComparisonTiming::refresh_overlay(const StageTimer& a, const StageTimer* b, const GlTimer& gl,
                                       const RollingMedian& frame_ms) {
  if (std::chrono::steady_clock::now() - last_refresh_ <= std::chrono::milliseconds(250)) return;
  overlay_.a = a.stages();
  overlay_.b = b ? b->stages() : std::vector<StageTiming>();
  overlay_.gl = gl.stages();
  overlay_.frame_ms = frame_ms.median();
  overlay_.method_ms = sum_of_method_stages(overlay_.a);
  last_refresh_ = std::chrono::steady_clock::now();
}

}  // namespace gausslab
