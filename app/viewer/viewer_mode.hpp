#pragma once
// A mode of the viewer: what one frame shows and does between the frame loop's steps. The frame
// loop (viewer.hpp) owns the window or offscreen surface, Dear ImGui, pacing and the GL stage timer;
// a mode owns its pictures, processing, panels and automated-run report. The comparison of two
// methods (modes/comparison_mode.hpp) is the first mode, image sequences (modes/sequence_mode.hpp)
// the second; another is one more class and one line in make_viewer_mode (modes/viewer_modes.cpp).
// Every mode takes its actions through the one dispatcher (actions/action_dispatcher.hpp).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actions/action_dispatcher.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "viewer/run_report.hpp"
#include "viewer/startup.hpp"
#include "viewer/viewer_options.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class GlSurface;
class GlfwWindow;
class GlTimer;

// What the frame loop lends a mode for one frame.
struct FrameContext {
  GlSurface& surface;
  GlfwWindow* window;  // null offscreen
  GlTimer& gl_timer;
  RollingMedian& frame_ms;  // wall-clock frame times; a mode clears it when its setting changes
  bool live;       // input, processing and timing; false for the untimed frames before a view capture
  bool automated;  // --frames N or --script
  long long frame_number;       // frames drawn so far
  ActionInput input;            // keys and typed characters (--keys in the first live frame)
  bool capture_requested = false;  // set by the mode: read this frame back (view_captured gets it)
};

class ViewerMode {
 public:
  virtual ~ViewerMode() = default;

  // Between ImGui::NewFrame and ImGui::Render: input, panels, processing.
  virtual void update(FrameContext& frame) = 0;
  // After ImGui::Render, into the bound framebuffer: the picture (ImGui's windows are drawn over it).
  virtual void draw(FrameContext& frame) = 0;
  // A file dropped on the window.
  virtual void open_file(const std::string& path) = 0;
  // Polls the files the mode watches (a reference file, --watch's picture) and reloads a changed one;
  // true when something changed that a frame should show. Called by the frame loop on every wake-up,
  // the idle one included, so no thread watches them.
  virtual bool poll_files() { return false; }
  // The window title ("gausslab - photo.png - ..."); the frame loop adds the zoom (view_zoom).
  virtual std::string window_title() const = 0;
  // The picture's zoom (screen pixels per picture pixel), for the title; none: the title has none.
  virtual std::optional<double> view_zoom() const { return std::nullopt; }
  // The surface's rectangle (top-left origin, framebuffer pixels) that draw() covers with opaque
  // pixels this frame: the frame clears only the rest. nullopt: the whole surface is cleared.
  virtual std::optional<PictureArea> opaque_area() const { return std::nullopt; }
  // True when an automated run should stop early (a method failed).
  virtual bool failed() const = 0;
  // Work still on its way (results, numbers, the exact Gaussian), and what it is, for progress
  // lines; an automated run draws frames until nothing is (after settle(): no new work started).
  virtual bool busy() const { return false; }
  // Something on the screen changes without input (work on its way, continuous processing, an
  // upload in bands, playing, a message that goes at its time): the interactive frame loop draws
  // frames while this is true and otherwise sleeps until an event (viewer.cpp: an idle viewer costs
  // nothing).
  virtual bool wants_frames() const { return busy(); }
  // The first results are not in yet (a shown slot still prepares or computes its first result): a
  // timed run (--frames) starts counting frames once this is false, so its medians are of frames that
  // process, not of the start-up's empty ones.
  virtual bool starting() const { return false; }
  virtual std::string progress() const { return {}; }
  virtual void settle() {}
  // Undoes settle(): new work starts again (after a --script 'wait' step, whose busy() would
  // otherwise never end while an automated run reprocesses every frame).
  virtual void resume() {}
  // A --script step: runs the named command; returns "" or why it could not.
  virtual std::string run_command(const std::string& command, const std::string& argument) = 0;
  // One cycle of steps (run_command's commands) that visits every setting, for --soak.
  virtual std::vector<std::pair<std::string, std::string>> soak_cycle() const { return {}; }
  // The frame read back after a frame that set capture_requested (e.g. to save the view).
  virtual void view_captured(ImageRgba8 /*view*/) {}
  // The end of an automated run: waits for queued work, writes the screenshots and prints the
  // summary line. `capture_view` draws untimed frames and returns the last one's pixels.
  virtual int finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) = 0;
  // Before the GL context goes: waits for queued GPU work that uses the mode's buffers.
  virtual void shut_down() {}
};

// opaque_area() of a mode whose draw() fills its picture area `area`: none while it is empty.
inline std::optional<PictureArea> filled_picture_area(const PictureArea& area) {
  if (area.width <= 0 || area.height <= 0) return std::nullopt;
  return area;
}

// The mode the options ask for (modes/viewer_modes.cpp: the one place a new mode is added).
std::unique_ptr<ViewerMode> make_viewer_mode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface);

}  // namespace gausslab
