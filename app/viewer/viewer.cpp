#include "viewer/viewer.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "gausslab/cuda/device.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/frame_pacer.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "viewer/frame_trace.hpp"
#include "viewer/imgui_session.hpp"
#include "viewer/memory_report.hpp"

namespace gausslab {

namespace {

constexpr double kProgressEverySeconds = 3.0;
constexpr int kSoakStepFrames = 15;  // frames between two soak steps
constexpr double kSettleLimitSeconds = 900.0;  // an automated run gives up waiting for results after this

}  // namespace

Viewer::Viewer(const ViewerOptions& options, StartupPlan plan)
    : options_(options), script_(std::move(plan.script)), frame_ms_(static_cast<std::size_t>(history_frames(options))) {
  const bool automated = options.frames > 0 || !script_.empty();
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
  imgui_->new_frame(surface_->width(), surface_->height(), interval_ms / 1000.0, keys);
  FrameTrace& trace = FrameTrace::instance();
  trace.mark("new_frame");
  FrameContext frame{*surface_, window_, *gl_timer_, frame_ms_, live, options_.frames > 0 || !script_.empty(),
                     frames_drawn_, {}};
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
    surface_->clear();
    if (live) gl_timer_->begin("draw");
    mode_->draw(frame);
    if (live) gl_timer_->begin("ui");
    imgui_->render_draw_data();
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
    const std::string title = mode_->window_title();
    if (title != title_) window_->set_title(title_ = title);
  }
}

void Viewer::print_progress(const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_progress_ < std::chrono::duration<double>(kProgressEverySeconds)) return;
  last_progress_ = now;
  const std::string busy = mode_->progress();
  std::fprintf(stderr, "gausslab: %s%s%s\n", what.c_str(), busy.empty() ? "" : "; ", busy.c_str());
}

bool Viewer::run_script_steps(double elapsed_s) {
  if (waiting_in_script_) {
    if (mode_->busy()) return true;
    waiting_in_script_ = false;
    mode_->resume();
    script_delay_s_ = std::max(script_delay_s_, elapsed_s - wait_began_s_);
  }
  while (next_step_ < script_.size() && script_[next_step_].at_s + script_delay_s_ <= elapsed_s) {
    const ScriptStep& step = script_[next_step_++];
    script_step_frames_.emplace_back(script_frame_ms_.size(), step.text());
    if (step.command == "end") return false;
    if (step.command == "wait") {
      // Settled while it waits: a scripted run reprocesses every frame, and two CPU slots whose
      // jobs take turns on the worker would keep it busy at every frame's start for ever.
      mode_->settle();
      waiting_in_script_ = true;
      wait_began_s_ = step.at_s;
      return true;
    }
    if (const std::string problem = mode_->run_command(step.command, step.argument); !problem.empty())
      std::fprintf(stderr, "gausslab: script line %d ('%s'): %s\n", step.line, step.text().c_str(), problem.c_str());
  }
  return next_step_ < script_.size() || waiting_in_script_;
}

void Viewer::soak_step(int frame) {
  if (soak_cycle_.empty()) {
    soak_cycle_ = mode_->soak_cycle();
    if (soak_cycle_.empty()) return;
  }
  if (frame % kSoakStepFrames != 0) return;
  const std::size_t step = static_cast<std::size_t>(frame / kSoakStepFrames);
  if (step == soak_cycle_.size() + 1 && !soak_warm_) {  // one whole cycle done: every buffer made once
    soak_warm_ = MemoryInUse{frame, device_used_bytes(), host_rss_bytes()};
  }
  if (step > soak_cycle_.size() && step % soak_cycle_.size() == 1)
    soak_cycle_starts_.push_back(MemoryInUse{frame, device_used_bytes(), host_rss_bytes()});
  const auto& [command, argument] = soak_cycle_[step % soak_cycle_.size()];
  std::string problem;
  if (command == "resize") {
    const std::size_t x = argument.find('x');
    surface_->resize(std::stoi(argument.substr(0, x)), std::stoi(argument.substr(x + 1)));
  } else {
    problem = mode_->run_command(command, argument);
  }
  if (!problem.empty() && problem.find("cannot be reloaded") == std::string::npos)
    std::fprintf(stderr, "gausslab: soak step '%s %s': %s\n", command.c_str(), argument.c_str(), problem.c_str());
}

void Viewer::print_soak_report() {
  const MemoryInUse end{frames_drawn_, device_used_bytes(), host_rss_bytes()};
  const auto mib = [](long long bytes) { return std::to_string(bytes / (1024 * 1024)); };
  std::string line = "gausslab: soak frames=" + std::to_string(options_.soak) +
                     " steps=" + std::to_string(options_.soak / kSoakStepFrames) +
                     " cycle=" + std::to_string(soak_cycle_.size());
  if (soak_warm_) {
    line += " warm_frame=" + std::to_string(soak_warm_->frame);
    if (soak_warm_->device) line += " device_used_mib_warm=" + mib(*soak_warm_->device);
    line += " rss_mib_warm=" + mib(soak_warm_->rss);
  } else {
    line += " warm_frame=none (fewer frames than one cycle)";
  }
  if (end.device) line += " device_used_mib_end=" + mib(*end.device);
  line += " rss_mib_end=" + mib(end.rss);
  if (!soak_cycle_starts_.empty()) {  // the same step of every cycle after the first: first, lowest, highest, last
    const auto range = [&](auto value) {
      long long low = value(soak_cycle_starts_.front()), high = low;
      for (const MemoryInUse& m : soak_cycle_starts_) low = std::min(low, value(m)), high = std::max(high, value(m));
      return mib(value(soak_cycle_starts_.front())) + "," + mib(low) + "," + mib(high) + "," +
             mib(value(soak_cycle_starts_.back()));
    };
    line += " cycle_starts=" + std::to_string(soak_cycle_starts_.size());
    if (soak_cycle_starts_.front().device)
      line += " device_used_mib_cycle_starts=" + range([](const MemoryInUse& m) { return m.device.value_or(0); });
    line += " rss_mib_cycle_starts=" + range([](const MemoryInUse& m) { return m.rss; });
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

bool Viewer::settle() {
  using Clock = std::chrono::steady_clock;
  mode_->settle();
  const Clock::time_point start = Clock::now();
  Clock::time_point previous = start;
  bool first = !script_.empty();  // a script's last step is performed in the next frame: draw it
  while (first || mode_->busy()) {
    first = false;
    if (window_) window_->poll_events(0.0);
    pacer_->wait_for_slot();
    const Clock::time_point now = Clock::now();
    run_frame(std::chrono::duration<double, std::milli>(now - previous).count(), true, false);
    previous = now;
    print_progress("waiting for the results");
    if (now - start > std::chrono::duration<double>(kSettleLimitSeconds)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(8));  // leave the cores to the workers
  }
  return true;
}

int Viewer::run() {
  using Clock = std::chrono::steady_clock;
  const bool scripted = !script_.empty();
  const bool automated = options_.frames > 0 || scripted;
  const Clock::time_point first = Clock::now();
  Clock::time_point previous_start = first;
  last_progress_ = first;
  int counted_from = 0;  // a timed run counts its frames from the first results on
  for (int frame = 0;; ++frame) {
    if (!scripted && automated && frame - counted_from >= options_.frames) break;
    if (window_) {
      if (window_->should_close()) break;
      window_->poll_events(window_->iconified() && !automated ? 0.1 : 0.0);
      if (window_->iconified() && !automated) continue;
      const std::vector<std::string> dropped = window_->take_dropped_paths();
      if (!dropped.empty()) mode_->open_file(dropped.back());  // several files: the last one wins
    }
    FrameTrace::instance().begin_frame();
    pacer_->wait_for_slot();  // at most two frames queued on the GPU
    FrameTrace::instance().mark("pacer_wait");
    const Clock::time_point start = Clock::now();
    const double interval_ms = std::chrono::duration<double, std::milli>(start - previous_start).count();
    const bool warming = !scripted && automated && frame == counted_from && frame > 0 && mode_->starting() &&
                         std::chrono::duration<double>(start - first).count() < kSettleLimitSeconds;
    if (warming) ++counted_from;
    if (frame > counted_from) {
      frame_ms_.add(interval_ms);
      if (scripted) script_frame_ms_.push_back(interval_ms);
    }
    previous_start = start;
    if (scripted && !run_script_steps(std::chrono::duration<double>(start - first).count())) break;
    if (options_.soak > 0) soak_step(frame);
    FrameTrace::instance().mark("script");
    run_frame(frame > 0 ? interval_ms : 1000.0 / 60.0, true, false);
    FrameTrace::instance().end_frame(frame);
    if (automated && mode_->failed()) break;
    if (automated)
      print_progress(scripted ? "script step " + std::to_string(next_step_) + " of " + std::to_string(script_.size())
                              : "frame " + std::to_string(frame + 1) + " of " + std::to_string(options_.frames));
  }
  if (!automated) return 0;
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
  if (scripted) {
    std::printf("%s\n", describe(frame_time_report(script_frame_ms_, script_step_frames_)).c_str());
    std::fflush(stdout);
  }
  if (options_.soak > 0) print_soak_report();
  return status;
}

}  // namespace gausslab
