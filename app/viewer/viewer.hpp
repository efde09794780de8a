#pragma once
// The viewer's frame loop (the loop of Dear ImGui's GLFW + OpenGL3 example):
//   poll events → pace → ImGui frame → mode.update (input, panels, processing) → ImGui::Render
//   → mode.draw (the picture) → ImGui's draw data → present.
// Interactive in a window; automated with --frames N or --script FILE (window or --offscreen):
// the timed frames (or the script), then frames until the mode's work is all in (with a progress
// line every few seconds), then the mode's report. What a frame shows and does belongs to the
// mode (viewer_mode.hpp).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "viewer/run_report.hpp"
#include "viewer/script.hpp"
#include "viewer/startup.hpp"
#include "viewer/viewer_mode.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

class GlSurface;
class GlfwWindow;
class GlTimer;
class FramePacer;
struct ImGuiSession;

class Viewer {
 public:
  // Opens the window (or the offscreen context), sets up ImGui and the mode with its first picture.
  // Throws GlError / CudaError / std::runtime_error when that fails.
  Viewer(const ViewerOptions& options, StartupPlan plan);
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // Runs until the window closes (interactive) or the automated run is done; returns the exit status.
  int run();

 private:
  // One pass of the loop; `live`: input, processing and timing; `capture`: read the view back
  // before presenting it.
  void run_frame(double interval_ms, bool live, bool capture);
  // Runs the script's steps that are due; false once the script has ended.
  bool run_script_steps(double elapsed_s);
  // Draws frames until the mode's work is in; false when it took longer than the limit.
  bool settle();
  void print_progress(const std::string& what);
  // --soak: the next step of the mode's cycle every few frames; the memory report at the end.
  void soak_step(int frame);
  void print_soak_report();

  ViewerOptions options_;
  std::vector<ScriptStep> script_;
  std::size_t next_step_ = 0;
  bool waiting_in_script_ = false;
  // How long the script's waits have held it back: the steps after a 'wait' keep their spacing from
  // it (two steps half a second apart stay half a second apart however long the wait took).
  double script_delay_s_ = 0.0;
  double wait_began_s_ = 0.0;  // the schedule's time of the wait in progress
  // Declaration order is destruction order reversed: the GL context (surface_) outlives everything
  // that owns GL objects.
  std::unique_ptr<GlSurface> surface_;
  GlfwWindow* window_ = nullptr;  // surface_ when it is a window
  std::unique_ptr<ImGuiSession> imgui_;
  std::unique_ptr<FramePacer> pacer_;
  std::unique_ptr<GlTimer> gl_timer_;
  std::unique_ptr<ViewerMode> mode_;
  RollingMedian frame_ms_;
  std::vector<double> script_frame_ms_;
  std::vector<std::pair<std::size_t, std::string>> script_step_frames_;
  long long frames_drawn_ = 0;
  std::string pending_keys_;  // --keys, typed into the first frame
  std::string title_;
  ImageRgba8 view_capture_;
  std::chrono::steady_clock::time_point last_progress_{};
  struct MemoryInUse {
    long long frame = 0;
    std::optional<long long> device;
    long long rss = 0;
  };
  std::vector<std::pair<std::string, std::string>> soak_cycle_;
  std::optional<MemoryInUse> soak_warm_;
  // Memory in use at the same point of every later cycle (its first step): what is in use depends
  // on the step (window size, view, methods), so growth shows only between the same steps.
  std::vector<MemoryInUse> soak_cycle_starts_;
};

}  // namespace gausslab
