#pragma once
// The viewer's application loop (DESIGN.md "One frame"):
//   poll events → ImGui frame → panels edit FilterState / ViewState → apply changes
//   → if something changed (or continuous): map, run A (and B), unmap, upload   [ResultPipeline]
//   → draw the picture with our shader → ImGui → present.
// Interactive in a window; automated with --frames N (window or --offscreen), which prints one
// line of timings and writes the screenshots.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accuracy_probe.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "panels.hpp"
#include "run_report.hpp"
#include "startup.hpp"
#include "viewer_options.hpp"
#include "viewer_state.hpp"

namespace gausslab {

class GlSurface;
class GlfwWindow;
class GlTimer;
class FramePacer;
class ImageRenderer;
class ResultPipeline;
struct ImGuiSession;

class Viewer {
 public:
  // Opens the window (or the offscreen context), sets up ImGui, the pipeline and the first picture.
  // Throws GlError / CudaError / std::runtime_error when that fails.
  Viewer(const ViewerOptions& options, StartupPlan plan);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // Runs until the window closes (interactive) or N frames are done; returns the exit status.
  int run();

 private:
  void begin_ui_frame(double delta_seconds);
  void handle_input();
  void handle_dropped_files();
  void apply_requests(const PanelRequests& requests);
  void apply_changes();
  void open_image(const std::string& path);
  bool rebuild_picture();
  Method* method_instance(int slot, int index);
  std::string prepare_slot(int slot, int index);
  void prepare_b_when_shown();
  void update_method_choices();
  bool b_needed() const;
  void process(bool run_a, bool run_b);
  void collect_accuracy(bool wait);
  void refresh_overlay_timings();
  // One pass of the loop; `live`: input, processing and timing (false for the untimed frames
  // drawn before the view screenshot); `capture`: read the view back before presenting it.
  void run_frame(double interval_ms, bool live, bool capture);
  void draw_frame(bool timed);
  void save_result_interactive();
  PanelInfo panel_info() const;
  std::string accuracy_text(bool& ok) const;
  FilterProblem problem() const;
  int finish_automated_run();

  ViewerOptions options_;
  // Declaration order is destruction order reversed: the GL context (surface_) outlives everything
  // that owns GL objects.
  std::unique_ptr<GlSurface> surface_;
  GlfwWindow* window_ = nullptr;  // surface_ when it is a window
  std::unique_ptr<ImGuiSession> imgui_;
  std::unique_ptr<ResultPipeline> pipeline_;
  std::unique_ptr<ImageRenderer> renderer_;
  std::unique_ptr<FramePacer> pacer_;
  std::unique_ptr<GlTimer> gl_timer_;
  StageTimer timer_a_, timer_b_;
  std::vector<std::unique_ptr<Method>> instances_[2];  // per slot, per registry index, made on first use
  AccuracyProbe probe_;

  // State the panels edit, and what was last applied.
  FilterState filter_, applied_;
  ViewState view_;
  PanelScratch scratch_;
  std::vector<MethodChoice> choices_;

  // The picture.
  ImageRgba8 original_;
  std::string image_name_;
  std::shared_ptr<const ImageRgba8> picture_;  // as processed (resampled), shared with the accuracy worker

  // What is computed and what is wanted: a generation number per setting.
  std::uint64_t generation_a_ = 1, generation_b_ = 1;
  std::uint64_t result_generation_a_ = 0, result_generation_b_ = 0;
  std::uint64_t b_prepared_generation_ = 0;  // generation_b_ that slot B was last prepared for
  std::string problem_a_, problem_b_;  // why A/B cannot run or failed
  bool measurement_wanted_ = true;
  std::uint64_t crop_generation_ = 0;  // generation of the crop on its way
  AccuracyBound bound_a_;

  // Messages.
  std::string load_error_, status_;
  std::string cuda_description_;
  std::string pending_keys_;  // --keys, typed into the first frame
  OutputPath path_seen_ = OutputPath::Cpu;

  // Input.
  enum class Drag { None, Pan, Divider } drag_ = Drag::None;

  // Timing.
  RollingMedian frame_ms_;
  OverlayTimings overlay_timings_;
  std::chrono::steady_clock::time_point last_overlay_refresh_{};
  bool run_failed_ = false;
  std::string run_failure_;
  bool save_requested_ = false;
  ImageRgba8 view_capture_;  // the last automated frame, for --screenshot-view
};

}  // namespace gausslab
