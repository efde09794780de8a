#include "viewer/viewer.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "gausslab/cuda/device.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/frame_pacer.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "viewer/frame_omissions.hpp"
#include "viewer/frame_trace.hpp"
#include "viewer/imgui_session.hpp"

namespace gausslab {

Viewer::Viewer(const ViewerOptions& options, StartupPlan plan)
    : options_(options), run_(options, std::move(plan.script)), frame_ms_(static_cast<std::size_t>(history_frames(options))) {
  const bool automated = run_.automated();
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
  // Automated runs keep every frame's GL stages, also those of the frames that wait for results
  // (an upload runs only in the frame its result arrives in).
  gl_timer_ = std::make_unique<GlTimer>(4, automated ? 8192 : history_frames(options));
  gl_timer_->set_enabled(!frame_omissions().gl_timer);
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

void Viewer::run_frame(double interval_ms, bool live, bool capture) {
  std::vector<KeyEvent> keys;
  if (window_) keys = window_->take_key_events();
  // HiDPI: the text and widgets follow the window's content scale (read again each frame: the
  // callback only counts as an event, and a frame is drawn after each).
  if (imgui_->set_scale(window_ ? window_->content_scale() : 1.0f) && options_.events) {
    std::printf("gausslab-event: content_scale %g font %.0f\n", imgui_->scale(), std::round(kBaseFontPixels * imgui_->scale()));
    std::fflush(stdout);
  }
  imgui_->new_frame(surface_->width(), surface_->height(), interval_ms / 1000.0, keys);
  FrameTrace& trace = FrameTrace::instance();
  trace.mark("new_frame");
  FrameContext frame{*surface_, window_, *gl_timer_, frame_ms_, live, run_.automated(), frames_drawn_, {}};
  const ImGuiIO& io = ImGui::GetIO();
  frame.input.characters.assign(io.InputQueueCharacters.begin(), io.InputQueueCharacters.end());
  frame.input.typing = io.WantTextInput;
  frame.input.key_events = std::move(keys);
  frame.input.window = window_;
  if (live) {
    frame.input.typed_keys.swap(pending_keys_);  // --keys: as if typed, in order, in the first frame
    gl_timer_->begin_frame();
  }
  mode_->update(frame);
  trace.mark("update_rest");
  ImGui::Render();
  surface_->bind_framebuffer();
  if (surface_->width() > 0 && surface_->height() > 0) {  // not minimised
    const FrameOmissions& omit = frame_omissions();
    const std::optional<PictureArea> covered = omit.image ? std::nullopt : mode_->opaque_area();
    if (covered)
      surface_->clear_except(covered->x, covered->y, covered->width, covered->height);
    else
      surface_->clear();
    if (live) gl_timer_->begin("draw");
    if (!omit.image) mode_->draw(frame);
    if (live) gl_timer_->begin("ui");
    if (!omit.ui) imgui_->render_draw_data();
    if (live) gl_timer_->end();
  }
  trace.mark("draw");
  if (live) gl_timer_->end_frame();
  if (capture) view_capture_ = surface_->capture();
  if (frame.capture_requested) mode_->view_captured(surface_->capture());
  trace.mark("capture");
  surface_->present();
  pacer_->frame_submitted();
  trace.mark("present");
  ++frames_drawn_;
  if (options_.events) {
    std::printf("gausslab-event: frame %lld\n", frames_drawn_);
    std::fflush(stdout);
  }
  if (window_) {
    // The zoom in the title, as tev and HDRView have it ("... – 400 %").
    const std::optional<double> zoom = mode_->view_zoom();
    const std::string title = mode_->window_title() + (zoom ? " \u2013 " + zoom_percent_text(*zoom) : std::string());
    if (title != title_) {
      window_->set_title(title_ = title);
      if (options_.events) {  // what was applied (sigma, the slots), for drivers that wait on it
        std::printf("gausslab-event: title %s\n", title_.c_str());
        std::fflush(stdout);
      }
    }
  }
}

bool Viewer::settle() {
  using Clock = std::chrono::steady_clock;
  mode_->settle();
  const Clock::time_point start = Clock::now();
  Clock::time_point previous = start;
  bool first = run_.scripted();  // a script's last step is performed in the next frame: draw it
  while (first || mode_->busy()) {
    first = false;
    if (window_) window_->poll_events(0.0);
    pacer_->wait_for_slot();
    const Clock::time_point now = Clock::now();
    run_frame(std::chrono::duration<double, std::milli>(now - previous).count(), true, false);
    previous = now;
    run_.print_progress("waiting for the results", *mode_);
    if (now - start > std::chrono::duration<double>(kSettleLimitSeconds)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(8));  // leave the cores to the workers
  }
  return true;
}

int Viewer::run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point first = Clock::now();
  Clock::time_point previous_start = first;
  for (int frame = 0;; ++frame) {
    if (run_.frames_done(frame)) break;
    if (window_) {
      if (window_->should_close()) break;
      const bool interactive = !run_.automated();
      // An idle viewer costs nothing: with no input since the last frames and nothing on its way,
      // no processing and no animation, it sleeps in glfwWaitEventsTimeout instead of drawing the
      // same frame again (about one core before, issue 39).
      const bool idle = interactive && frames_to_draw_ == 0;
      if (idle && !said_idle_ && options_.events) {  // once per quiet spell, for drivers that measure it
        std::printf("gausslab-event: idle after frame %lld\n", frames_drawn_);
        std::fflush(stdout);
      }
      said_idle_ = idle;
      window_->poll_events(idle ? kIdleWaitSeconds : window_->iconified() && interactive ? 0.1 : 0.0);
      if (window_->iconified() && interactive) continue;
      if (interactive) {
        const bool input = window_->events_seen() != events_seen_;
        events_seen_ = window_->events_seen();
        if (mode_->poll_files() || input || mode_->wants_frames()) frames_to_draw_ = kFramesAfterActivity;
        if (frames_to_draw_ == 0) continue;  // woke without an event: nothing to draw
        if (idle) previous_start = Clock::now() - std::chrono::milliseconds(16);  // the sleep is no frame time
        --frames_to_draw_;
      }
      const std::vector<std::string> dropped = window_->take_dropped_paths();
      if (!dropped.empty()) mode_->open_file(dropped.back());  // several files: the last one wins
    }
    FrameTrace::instance().begin_frame();
    pacer_->wait_for_slot();  // at most two frames queued on the GPU
    FrameTrace::instance().mark("pacer_wait");
    const Clock::time_point start = Clock::now();
    const double interval_ms = std::chrono::duration<double, std::milli>(start - previous_start).count();
    previous_start = start;
    if (!run_.before_frame(frame, std::chrono::duration<double>(start - first).count(), interval_ms, *mode_, *surface_,
                           frame_ms_))
      break;
    FrameTrace::instance().mark("script");
    run_frame(frame > 0 ? interval_ms : 1000.0 / 60.0, true, false);
    FrameTrace::instance().end_frame(frame);
    if (!run_.after_frame(frame, *mode_)) break;
  }
  return run_.automated() ? finish() : 0;
}

int Viewer::finish() {
  if (!mode_->failed() && !settle()) {
    std::fprintf(stderr, "gausslab: error: the results were not in after %.0f s: %s\n", kSettleLimitSeconds,
                 mode_->progress().c_str());
    return 1;
  }
  pacer_->drain();
  gl_timer_->flush();
  FrameContext frame{*surface_, window_, *gl_timer_, frame_ms_, false, true, frames_drawn_, {}};
  const int status = mode_->finish_automated(frame, [this] {
    // Two untimed frames let ImGui's auto-sized windows settle to their content; the second one
    // is captured.
    run_frame(1000.0 / 60.0, false, false);
    run_frame(1000.0 / 60.0, false, true);
    return std::move(view_capture_);
  });
  run_.print_reports(frames_drawn_);
  return status;
}

}  // namespace gausslab
