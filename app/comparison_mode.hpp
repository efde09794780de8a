#pragma once
// The comparison mode: one picture, two slots A and B (methods or the original picture), the
// comparison views, the live timings and the error of A against the exact Gaussian.
//   update: keys and mouse → panels → apply what changed → run the slots that need it
//           [ResultPipeline] → collect the accuracy crop → refresh the overlay
//   draw:   the picture through ImageRenderer (A, B, split, difference)
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "accuracy_monitor.hpp"
#include "panels.hpp"
#include "slots.hpp"
#include "view_input.hpp"
#include "viewer_mode.hpp"
#include "viewer_state.hpp"

namespace gausslab {

class ImageRenderer;
class ResultPipeline;

class ComparisonMode final : public ViewerMode {
 public:
  ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface);
  ~ComparisonMode() override;

  void update(FrameContext& frame) override;
  void draw(FrameContext& frame) override;
  void open_file(const std::string& path) override;
  std::string window_title() const override;
  bool failed() const override { return run_failed_; }
  int finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) override;
  void shut_down() override;

 private:
  // Input and the panels' requests.
  void handle_keys(int view_width, int view_height);
  void apply_requests(const PanelRequests& requests);
  // Settings: what each slot should show after the panels and keys changed the filter state.
  void apply_changes(FrameContext& frame);
  void want_slots();
  bool b_shown() const;
  bool rebuild_picture();
  void update_method_choices();
  // Processing.
  void process(FrameContext& frame);
  void collect_accuracy(bool wait);
  void save_result_interactive();
  // What the panels show.
  PanelInfo panel_info() const;
  std::string accuracy_text(bool& ok) const;
  void refresh_overlay_timings(const FrameContext& frame);
  FilterProblem problem() const;
  RunSummary automated_summary(const FrameContext& frame);

  ViewerOptions options_;
  GlSurface& surface_;
  std::unique_ptr<ResultPipeline> pipeline_;
  std::unique_ptr<ImageRenderer> renderer_;
  Slot slot_a_, slot_b_;
  AccuracyMonitor accuracy_;

  // State the panels edit, and what was last applied.
  FilterState filter_, applied_;
  ViewState view_;
  PanelScratch scratch_;
  std::vector<MethodChoice> choices_;
  MouseDrag drag_ = MouseDrag::None;

  // The picture: as loaded, and as processed (resampled), shared with the accuracy worker. Every
  // picture processed gets a new number (SlotSetting::picture).
  ImageRgba8 original_;
  std::string image_name_;
  std::shared_ptr<const ImageRgba8> picture_;
  std::uint64_t picture_number_ = 0;

  // Messages.
  std::string load_error_, status_;
  std::string cuda_description_;
  OutputPath path_seen_ = OutputPath::Cpu;

  OverlayTimings overlay_timings_;
  std::chrono::steady_clock::time_point last_overlay_refresh_{};
  bool save_requested_ = false;
  bool run_failed_ = false;
  std::string run_failure_;
};

}  // namespace gausslab
