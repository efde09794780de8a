// The end of the comparison's automated run (--frames N): the summary line and the screenshots.
#include <cstdio>

#include "comparison_mode.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

RunSummary ComparisonMode::automated_summary(const FrameContext& frame) {
  RunSummary summary;
  summary.method_id = choices_.at(static_cast<std::size_t>(applied_.method_a)).id;
  if (!options_.compare_id.empty() || view_.mode != CompareMode::A) {
    summary.compare = applied_.method_b >= 0 ? choices_.at(static_cast<std::size_t>(applied_.method_b)).id : "original";
    summary.display = to_string(view_.mode);
  }
  summary.path = to_string(pipeline_->path());
  summary.path_reason = pipeline_->path_reason();
  summary.renderer = surface_.info().renderer;
  summary.gl_context = surface_.info().platform;
  summary.width = pipeline_->width();
  summary.height = pipeline_->height();
  summary.params = applied_.params;
  summary.frames = options_.frames;
  summary.frame_ms = frame.frame_ms.median();
  for (const StageTiming& stage : slot_a_.timer().stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  if (b_shown())
    for (const StageTiming& stage : slot_b_.timer().stages()) summary.stages.emplace_back("b_" + stage.name, stage.median_ms);
  for (const StageTiming& stage : frame.gl_timer.stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  const std::optional<AccuracyResult> accuracy = accuracy_.result_for(slot_a_.wanted());
  if (accuracy && accuracy->error.empty())
    summary.accuracy = accuracy->stats;
  else
    summary.accuracy_note = accuracy ? accuracy->error : "no measurement";
  return summary;
}

int ComparisonMode::finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) {
  pipeline_->synchronize();
  slot_a_.timer().flush();
  slot_b_.timer().flush();
  if (run_failed_) {
    std::fprintf(stderr, "gausslab: error: %s %s\n",
                 choices_.at(static_cast<std::size_t>(applied_.method_a)).id.c_str(), run_failure_.c_str());
    return 1;
  }
  collect_accuracy(true);
  accuracy_.wait_idle();

  // The summary of the N timed frames, before anything else is drawn.
  const RunSummary summary = automated_summary(frame);
  const Overwrite overwrite = options_.overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (!options_.screenshot.empty()) {
    if (!pipeline_->has_result(0)) {
      std::fprintf(stderr, "gausslab: error: no result to save (%s)\n", slot_a_.problem().c_str());
      return 1;
    }
    save_image(options_.screenshot, pipeline_->read_result(0), 4, overwrite);
  }
  if (!options_.screenshot_view.empty()) {
    // The untimed frames show the final medians and the measured error.
    refresh_overlay_timings(frame);
    save_image(options_.screenshot_view, capture_view(), 3, overwrite);
  }
  std::printf("%s\n", summary_line(summary).c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace gausslab
