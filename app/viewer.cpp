#include "viewer.hpp"

#include <imgui.h>

#include <chrono>
#include <cstdio>

#include "gausslab/cuda/device.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/frame_pacer.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "imgui_session.hpp"

namespace gausslab {

Viewer::Viewer(const ViewerOptions& options, StartupPlan plan)
    : options_(options), frame_ms_(static_cast<std::size_t>(history_frames(options))) {
  const bool automated = options.frames > 0;
  if (options.offscreen) {
    const CudaDeviceStatus& device = cuda_device_status();
    surface_ = std::make_unique<EglOffscreen>(options.window_width, options.window_height,
                                              device.available ? device.device : -1);
  } else {
    // Timed runs swap as fast as they can; interactive use follows the display.
    auto window = std::make_unique<GlfwWindow>("gausslab", options.window_width, options.window_height, !automated);
    window_ = window.get();
    surface_ = std::move(window);
  }
  imgui_ = std::make_unique<ImGuiSession>(window_);
  pacer_ = std::make_unique<FramePacer>(2);
  gl_timer_ = std::make_unique<GlTimer>(4, history_frames(options));
  mode_ = make_viewer_mode(options, std::move(plan), *surface_);
  pending_keys_ = options.keys;
}

Viewer::~Viewer() {
  // Queued GPU work may still use the mode's buffers: finish it before they are freed.
  if (mode_) {
    try {
      mode_->shut_down();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "gausslab: %s\n", error.what());
    }
  }
  mode_.reset();
}

FrameContext Viewer::context(bool live) {
  return FrameContext{*surface_, window_, *gl_timer_, frame_ms_, live, options_.frames > 0};
}

void Viewer::run_frame(double interval_ms, bool live, bool capture) {
  imgui_->new_frame(surface_->width(), surface_->height(), interval_ms / 1000.0);
  if (live && !pending_keys_.empty()) {  // --keys: as if typed, in order
    for (unsigned char c : pending_keys_) ImGui::GetIO().InputQueueCharacters.push_back(static_cast<ImWchar>(c));
    pending_keys_.clear();
  }
  FrameContext frame = context(live);
  if (live) gl_timer_->begin_frame();
  mode_->update(frame);
  ImGui::Render();
  surface_->bind_framebuffer();
  if (surface_->width() > 0 && surface_->height() > 0) {  // not minimised
    if (live) gl_timer_->begin("draw");
    mode_->draw(frame);
    if (live) gl_timer_->begin("ui");
    imgui_->render_draw_data();
    if (live) gl_timer_->end();
  }
  if (live) gl_timer_->end_frame();
  if (capture) view_capture_ = surface_->capture();
  surface_->present();
  pacer_->frame_submitted();
  if (window_) {
    const std::string title = mode_->window_title();
    if (title != title_) window_->set_title(title_ = title);
  }
}

int Viewer::run() {
  using Clock = std::chrono::steady_clock;
  const bool automated = options_.frames > 0;
  Clock::time_point previous_start = Clock::now();
  for (int frame = 0; !automated || frame < options_.frames; ++frame) {
    if (window_) {
      if (window_->should_close()) break;
      window_->poll_events(window_->iconified() ? 0.1 : 0.0);
      if (window_->iconified() && !automated) continue;
      const std::vector<std::string> dropped = window_->take_dropped_paths();
      if (!dropped.empty()) mode_->open_file(dropped.back());  // several files: the last one wins
    }
    pacer_->wait_for_slot();  // at most two frames queued on the GPU
    const Clock::time_point start = Clock::now();
    const double interval_ms = std::chrono::duration<double, std::milli>(start - previous_start).count();
    if (frame > 0) frame_ms_.add(interval_ms);
    previous_start = start;
    run_frame(frame > 0 ? interval_ms : 1000.0 / 60.0, true, false);
    if (automated && mode_->failed()) break;
  }
  if (!automated) return 0;
  pacer_->drain();
  gl_timer_->flush();
  FrameContext frame = context(false);
  return mode_->finish_automated(frame, [this] {
    // Two untimed frames without processing let ImGui's auto-sized windows settle to their
    // content; the second one is captured.
    run_frame(1000.0 / 60.0, false, false);
    run_frame(1000.0 / 60.0, false, true);
    return std::move(view_capture_);
  });
}

}  // namespace gausslab
