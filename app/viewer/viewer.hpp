#pragma once
// The viewer's frame loop (the loop of Dear ImGui's GLFW + OpenGL3 example):
//   poll events → pace → ImGui frame → mode.update (input, panels, processing) → ImGui::Render
//   → mode.draw (the picture) → ImGui's draw data → present.
// Interactive in a window; automated with --frames N or --script FILE (window or --offscreen): the
// run's rules around the frames (counting, the script's steps, the soak's, progress lines) are
// automated_run.hpp's; at the end the loop draws frames until the mode's work is all in, then the
// mode reports. What a frame shows and does belongs to the mode (viewer_mode.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "viewer/automated_run.hpp"
#include "viewer/startup.hpp"
#include "viewer/viewer_mode.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

// The interactive loop's idle rule (viewer.cpp): frames drawn after the last input or work (Dear
// ImGui settles hover, focus and window sizes over a few), and the longest sleep between two looks
// at the mode.
inline constexpr int kFramesAfterActivity = 8;
inline constexpr double kIdleWaitSeconds = 0.5;

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
  // Draws frames until the mode's work is in; false when it took longer than the limit.
  bool settle();
  // The end of an automated run: the results in, the mode's report, the run's.
  int finish();

  ViewerOptions options_;
  AutomatedRun run_;
  // Declaration order is destruction order reversed: the GL context (surface_) outlives everything
  // that owns GL objects.
  std::unique_ptr<GlSurface> surface_;
  GlfwWindow* window_ = nullptr;  // surface_ when it is a window
  std::unique_ptr<ImGuiSession> imgui_;
  std::unique_ptr<FramePacer> pacer_;
  std::unique_ptr<GlTimer> gl_timer_;
  std::unique_ptr<ViewerMode> mode_;
  RollingMedian frame_ms_;
  long long frames_drawn_ = 0;
  std::string pending_keys_;  // --keys, typed into the first frame
  std::string title_;
  // Interactive: frames still to draw after the last input or the last frame the mode wanted; at 0
  // the loop sleeps until an event (kIdleWaitSeconds at most, then asks the mode again).
  int frames_to_draw_ = kFramesAfterActivity;
  std::uint64_t events_seen_ = 0;
  bool said_idle_ = false;  // --events: "idle" printed for this quiet spell
  ImageRgba8 view_capture_;
};

}  // namespace gausslab
