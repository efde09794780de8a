#include "viewer.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#define GLFW_INCLUDE_NONE  // key codes only; all GL goes through render/
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/frame_pacer.hpp"
#include "gausslab/render/gl_error.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "image_resample.hpp"
#include "keyboard.hpp"

namespace gausslab {

// Dear ImGui's context and backends, shut down in reverse order before the GL context goes.
struct ImGuiSession {
  bool platform_backend = false;
  bool renderer_backend = false;

  explicit ImGuiSession(GlfwWindow* window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini into the user's folder
    ImGui::StyleColorsDark();
    if (window) platform_backend = ImGui_ImplGlfw_InitForOpenGL(window->handle(), true);
    renderer_backend = ImGui_ImplOpenGL3_Init("#version 330 core");
    if (!renderer_backend) {
      shutdown();
      throw GlError("Dear ImGui's OpenGL 3 renderer could not start (it loads libGL.so.1 for its functions)");
    }
  }
  ~ImGuiSession() { shutdown(); }
  void shutdown() {
    if (!ImGui::GetCurrentContext()) return;
    if (renderer_backend) ImGui_ImplOpenGL3_Shutdown();
    if (platform_backend) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    renderer_backend = platform_backend = false;
  }
};

namespace {

// Enough history for the medians of a whole timed run (and a minute of interactive frames).
int history_frames(const ViewerOptions& options) { return std::clamp(options.frames, 60, 5000); }

double sum_of_method_stages(const std::vector<StageTiming>& stages) {
  double total = 0;
  for (const StageTiming& stage : stages)
    if (!is_pipeline_stage(stage.name)) total += stage.median_ms;
  return total;
}

}  // namespace

Viewer::Viewer(const ViewerOptions& options, StartupPlan plan)
    : options_(options),
      timer_a_(4, history_frames(options)),
      timer_b_(4, history_frames(options)),
      frame_ms_(static_cast<std::size_t>(history_frames(options))) {
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
  pipeline_ = std::make_unique<ResultPipeline>(options.best_path);
  renderer_ = std::make_unique<ImageRenderer>();
  pacer_ = std::make_unique<FramePacer>(2);
  gl_timer_ = std::make_unique<GlTimer>(4, history_frames(options));

  filter_.method_a = plan.method_a;
  filter_.method_b = plan.method_b;
  filter_.params = options.params;
  filter_.original_size = !options.resize;
  filter_.width = options.resize ? options.size_width : plan.original.width();
  filter_.height = options.resize ? options.size_height : plan.original.height();
  filter_.continuous = automated;  // timed runs process every frame
  view_.mode = options.display;
  original_ = std::move(plan.original);
  image_name_ = plan.image_name;
  if (!rebuild_picture()) throw std::runtime_error(load_error_);
  applied_ = filter_;
  problem_a_ = prepare_slot(0, filter_.method_a);
  update_method_choices();
  path_seen_ = pipeline_->path();
  cuda_description_ = describe(cuda_device_status());
  pending_keys_ = options.keys;
  if (window_) window_->set_title("gausslab - " + image_name_);
}

Viewer::~Viewer() {
  // Queued CUDA work may still use the methods' buffers: finish it before they are freed.
  if (pipeline_) {
    try {
      pipeline_->synchronize();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "gausslab: %s\n", error.what());
    }
  }
  for (auto& slot : instances_) slot.clear();
}

FilterProblem Viewer::problem() const {
  return FilterProblem{pipeline_->width(), pipeline_->height(), PixelFormat::Rgba8, applied_.params};
}

Method* Viewer::method_instance(int slot, int index) {
  auto& instances = instances_[slot];
  if (instances.size() != method_registry().size()) instances.resize(method_registry().size());
  auto& instance = instances.at(static_cast<std::size_t>(index));
  if (!instance) instance = method_registry()[static_cast<std::size_t>(index)].create();
  return instance.get();
}

std::string Viewer::prepare_slot(int slot, int index) {
  const MethodEntry& entry = method_registry().at(static_cast<std::size_t>(index));
  if (entry.info.backend == Backend::Cuda && !pipeline_->runs_gpu_methods()) return pipeline_->path_reason();
  Method* method = method_instance(slot, index);
  try {
    // prepare() may free or rewrite buffers that queued frames still read: let them finish first.
    if (method->prepared_problem() != problem()) pipeline_->synchronize();
    method->prepare(problem());  // allocations, plans, weights: outside the timed frame
    if (slot == 0) bound_a_ = method->accuracy_bound(problem());
  } catch (const std::exception& error) {
    return error.what();
  }
  return {};
}

void Viewer::update_method_choices() {
  choices_.clear();
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const MethodInfo& info = registry[i].info;
    MethodChoice choice{info.id, info.label, info.summary, info.accuracy, {}};
    if (info.backend == Backend::Cuda && !pipeline_->runs_gpu_methods())
      choice.blocked = pipeline_->path_reason();
    else
      choice.blocked = method_instance(0, static_cast<int>(i))->unsupported_reason(problem());
    choices_.push_back(std::move(choice));
  }
}

bool Viewer::b_needed() const { return view_.mode != CompareMode::A && filter_.method_b != kOriginalPicture; }

bool Viewer::rebuild_picture() {
  const int width = filter_.original_size ? original_.width() : filter_.width;
  const int height = filter_.original_size ? original_.height() : filter_.height;
  if (static_cast<long long>(width) * height > kMaxPixels) {
    load_error_ = "a " + std::to_string(width) + " x " + std::to_string(height) + " picture is larger than the " +
                  std::to_string(kMaxPixels) + " pixels gausslab supports";
    return false;
  }
  try {
    ImageRgba8 picture = resample(original_, width, height);
    auto shared = std::make_shared<const ImageRgba8>(picture);  // the accuracy worker's copy
    pipeline_->set_source(std::move(picture));
    picture_ = std::move(shared);
  } catch (const std::exception& error) {
    load_error_ = "could not use a " + std::to_string(width) + " x " + std::to_string(height) +
                  " picture: " + error.what();
    if (picture_) {  // put the previous picture back, so the pipeline and the view agree again
      try {
        pipeline_->set_source(*picture_);
      } catch (const std::exception&) {
      }
    }
    return false;
  }
  ++generation_a_;
  ++generation_b_;
  result_generation_a_ = result_generation_b_ = 0;
  measurement_wanted_ = true;
  crop_generation_ = 0;
  return true;
}

void Viewer::open_image(const std::string& path) {
  try {
    LoadedImage loaded = load_image(path);
    ImageRgba8 previous = std::move(original_);
    const std::string previous_name = image_name_;
    original_ = std::move(loaded.image);
    image_name_ = path;
    if (!rebuild_picture()) {  // e.g. too large for the GPU: the old picture stays
      original_ = std::move(previous);
      image_name_ = previous_name;
      return;
    }
    load_error_.clear();
    status_ = "opened " + path;
    view_.fit = true;
    timer_a_.reset_history();
    timer_b_.reset_history();
    gl_timer_->reset_history();
    problem_a_ = prepare_slot(0, filter_.method_a);
    update_method_choices();
    if (window_) window_->set_title("gausslab - " + image_name_);
  } catch (const ImageLoadError& error) {
    load_error_ = std::string("could not open: ") + error.what() + " (the current picture stays)";
  }
}

void Viewer::handle_dropped_files() {
  const std::vector<std::string> dropped = window_->take_dropped_paths();
  if (!dropped.empty()) open_image(dropped.back());  // several files: the last one wins
}

void Viewer::apply_requests(const PanelRequests& requests) {
  if (requests.open_path) open_image(*requests.open_path);
  if (requests.fit) view_.fit = true;
  if (requests.one_to_one) {
    view_.fit = false;
    view_.transform = one_to_one_view(pipeline_->width(), pipeline_->height(), surface_->width(), surface_->height());
  }
  if (requests.save_result) save_requested_ = true;
}

void Viewer::apply_changes() {
  if (filter_ == applied_) return;
  const bool size_changed = filter_.original_size != applied_.original_size ||
                            (!filter_.original_size && (filter_.width != applied_.width || filter_.height != applied_.height));
  if (size_changed && !rebuild_picture()) {
    filter_.original_size = applied_.original_size;
    filter_.width = applied_.width;
    filter_.height = applied_.height;
  }
  const bool params_changed = filter_.params != applied_.params;
  if (filter_.method_a != applied_.method_a || params_changed) {
    ++generation_a_;
    measurement_wanted_ = true;
  }
  if (filter_.method_b != applied_.method_b || params_changed) ++generation_b_;
  const bool setting_changed = filter_.method_a != applied_.method_a || filter_.method_b != applied_.method_b ||
                               params_changed || size_changed;
  applied_ = filter_;
  if (!setting_changed) return;  // only the processing mode changed
  timer_a_.reset_history();
  timer_b_.reset_history();
  gl_timer_->reset_history();
  frame_ms_.clear();
  problem_a_ = prepare_slot(0, filter_.method_a);
  update_method_choices();
}

void Viewer::prepare_b_when_shown() {
  // B is prepared only when a view shows it (its buffers, plans or spectra may be large).
  if (!b_needed() || b_prepared_generation_ == generation_b_) return;
  problem_b_ = prepare_slot(1, applied_.method_b);
  b_prepared_generation_ = generation_b_;
}

void Viewer::handle_input() {
  ImGuiIO& io = ImGui::GetIO();
  const int view_width = surface_->width(), view_height = surface_->height();
  if (!io.WantCaptureKeyboard) {
    for (int i = 0; i < io.InputQueueCharacters.Size; ++i) {
      const std::optional<KeyCommand> command = command_for_character(io.InputQueueCharacters[i]);
      if (!command) continue;
      switch (command->action) {
        case KeyAction::SigmaUpSmall: filter_.params.sigma = step_sigma(filter_.params.sigma, 0.1); break;
        case KeyAction::SigmaDownSmall: filter_.params.sigma = step_sigma(filter_.params.sigma, -0.1); break;
        case KeyAction::SigmaUpLarge: filter_.params.sigma = step_sigma(filter_.params.sigma, 1.0); break;
        case KeyAction::SigmaDownLarge: filter_.params.sigma = step_sigma(filter_.params.sigma, -1.0); break;
        case KeyAction::ToggleContinuous: filter_.continuous = !filter_.continuous; break;
        case KeyAction::NextDisplay: view_.mode = next_display(view_.mode); break;
        case KeyAction::ToggleSampling:
          view_.sampling = view_.sampling == Sampling::Linear ? Sampling::Nearest : Sampling::Linear;
          break;
        case KeyAction::Fit: view_.fit = true; break;
        case KeyAction::OneToOne:
          view_.fit = false;
          view_.transform = one_to_one_view(pipeline_->width(), pipeline_->height(), view_width, view_height);
          break;
        case KeyAction::SelectMethod: {
          const int index = command->method_index;
          if (index >= static_cast<int>(choices_.size())) break;
          const MethodChoice& choice = choices_[static_cast<std::size_t>(index)];
          if (choice.blocked.empty())
            filter_.method_a = index;
          else
            status_ = choice.id + " cannot run: " + choice.blocked;
          break;
        }
      }
    }
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S, false)) save_requested_ = true;
  }

  // The mouse, in framebuffer pixels (the view's units), unless ImGui wants it.
  const Vec2 mouse{io.MousePos.x * io.DisplayFramebufferScale.x, io.MousePos.y * io.DisplayFramebufferScale.y};
  const double divider_x = view_.split_fraction * view_width;
  const bool over_divider = view_.mode == CompareMode::Split && std::abs(mouse.x - divider_x) <= 6.0;
  if (!io.WantCaptureMouse) {
    if (io.MouseWheel != 0.0f) {
      view_.transform = zoom_around(view_.transform, wheel_zoom_factor(io.MouseWheel), mouse, view_width, view_height);
      view_.fit = false;
    }
    if (ImGui::IsMouseClicked(0)) drag_ = over_divider ? Drag::Divider : Drag::Pan;
    if (over_divider || drag_ == Drag::Divider) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  }
  if (drag_ != Drag::None && !ImGui::IsMouseDown(0)) drag_ = Drag::None;
  if (drag_ == Drag::Pan && (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)) {
    view_.transform = pan_by(view_.transform, {io.MouseDelta.x * io.DisplayFramebufferScale.x,
                                               io.MouseDelta.y * io.DisplayFramebufferScale.y});
    view_.fit = false;
  } else if (drag_ == Drag::Divider && view_width > 0) {
    view_.split_fraction = std::clamp(mouse.x / view_width, 0.0, 1.0);
  }
}

void Viewer::begin_ui_frame(double delta_seconds) {
  ImGui_ImplOpenGL3_NewFrame();
  if (window_) {
    ImGui_ImplGlfw_NewFrame();
  } else {  // offscreen: no platform backend, so size and time are set here
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(surface_->width()), static_cast<float>(surface_->height()));
    io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
    io.DeltaTime = static_cast<float>(std::max(delta_seconds, 1e-4));
  }
  ImGui::NewFrame();
}

void Viewer::process(bool run_a, bool run_b) {
  if (run_a) timer_a_.begin_frame();
  if (run_b) timer_b_.begin_frame();
  const ResultPipeline::Job a{run_a ? method_instance(0, applied_.method_a) : nullptr, &timer_a_};
  const ResultPipeline::Job b{run_b ? method_instance(1, applied_.method_b) : nullptr, &timer_b_};
  const Rect crop = accuracy_crop(pipeline_->width(), pipeline_->height());
  const bool want_crop = run_a && measurement_wanted_ && crop_generation_ == 0;
  try {
    if (pipeline_->process({a, b}, gl_timer_.get(), want_crop ? &crop : nullptr)) {
      crop_generation_ = generation_a_;
      measurement_wanted_ = false;
    }
    if (run_a) result_generation_a_ = generation_a_;
    if (run_b) result_generation_b_ = generation_b_;
  } catch (const std::exception& error) {
    // Blocked until the next change (which prepares the methods again).
    const std::string message = std::string("failed: ") + error.what();
    if (run_a) problem_a_ = message;
    if (run_b) problem_b_ = message;
    run_failed_ = true;
    run_failure_ = message;
    std::fprintf(stderr, "gausslab: %s\n", message.c_str());
  }
  if (run_a) timer_a_.end_frame();
  if (run_b) timer_b_.end_frame();
  // A failed registration or map falls back to staging: the reasons shown must follow.
  if (pipeline_->path() != path_seen_) {
    path_seen_ = pipeline_->path();
    update_method_choices();
  }
}

void Viewer::collect_accuracy(bool wait) {
  if (crop_generation_ == 0) return;
  std::optional<ImageRgba8> crop;
  try {
    crop = pipeline_->take_crop(wait);
  } catch (const std::exception& error) {
    problem_a_ = std::string("failed: ") + error.what();
    crop_generation_ = 0;
    return;
  }
  if (!crop) return;
  if (crop_generation_ == generation_a_ && picture_) {
    AccuracyJob job;
    job.generation = generation_a_;
    job.source = picture_;
    job.params = applied_.params;
    job.region = accuracy_crop(picture_->width(), picture_->height());
    job.crop = std::move(*crop);
    job.bound = bound_a_;
    probe_.submit(std::move(job));
  } else {
    measurement_wanted_ = true;  // the setting changed while the crop was on its way
  }
  crop_generation_ = 0;
}

std::string Viewer::accuracy_text(bool& ok) const {
  ok = true;
  char text[256];
  const std::optional<AccuracyResult> latest = probe_.latest();
  if (latest && latest->generation == generation_a_) {
    if (!latest->error.empty()) {
      ok = false;
      return "error measurement failed: " + latest->error;
    }
    ok = latest->within_bound();
    std::snprintf(text, sizeof text,
                  "A vs exact Gaussian (%dx%d crop at 0,0):\nmax error %.3g levels (bound %.2g), PSNR %.1f dB",
                  latest->region.width, latest->region.height, latest->stats.max_abs_error,
                  latest->bound.max_error_8bit, latest->stats.psnr_db);
    return text;
  }
  if (!problem_a_.empty()) return "A vs exact Gaussian: no result to measure";
  return "A vs exact Gaussian: measuring...";
}

PanelInfo Viewer::panel_info() const {
  PanelInfo info;
  info.methods = &choices_;
  info.image_name = image_name_;
  info.original_width = original_.width();
  info.original_height = original_.height();
  info.width = pipeline_->width();
  info.height = pipeline_->height();
  info.path = pipeline_->path();
  info.path_reason = pipeline_->path_reason();
  info.gl = &surface_->info();
  info.cuda_device = cuda_description_;
  info.load_error = load_error_;
  info.status = status_;
  info.method_a_problem = problem_a_;
  info.method_b_problem = problem_b_;
  info.accuracy_text = accuracy_text(info.accuracy_ok);
  info.automated = options_.frames > 0;
  return info;
}

void Viewer::refresh_overlay_timings() {
  overlay_timings_.a = timer_a_.stages();
  overlay_timings_.b = b_needed() ? timer_b_.stages() : std::vector<StageTiming>();
  overlay_timings_.gl = gl_timer_->stages();
  overlay_timings_.frame_ms = frame_ms_.median();
  overlay_timings_.method_ms = sum_of_method_stages(overlay_timings_.a);
  last_overlay_refresh_ = std::chrono::steady_clock::now();
}

void Viewer::draw_frame(bool timed) {
  surface_->bind_framebuffer();
  const int view_width = surface_->width(), view_height = surface_->height();
  if (view_width <= 0 || view_height <= 0) return;  // minimised
  if (view_.fit) view_.transform = fit_view(pipeline_->width(), pipeline_->height(), view_width, view_height);
  ImageDrawParams params;
  params.texture_a = pipeline_->has_result(0) ? pipeline_->result_texture(0) : pipeline_->source_texture();
  params.texture_b = applied_.method_b != kOriginalPicture && pipeline_->has_result(1) ? pipeline_->result_texture(1)
                                                                                      : pipeline_->source_texture();
  params.image_width = pipeline_->width();
  params.image_height = pipeline_->height();
  params.view = view_.transform;
  params.mode = view_.mode;
  params.split_x = view_.split_fraction * view_width;
  params.gain = view_.gain;
  params.sampling = view_.sampling;
  params.viewport_width = view_width;
  params.viewport_height = view_height;
  if (timed) gl_timer_->begin("draw");
  renderer_->draw(params);
  if (timed) gl_timer_->begin("ui");
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (timed) gl_timer_->end();
}

void Viewer::save_result_interactive() {
  save_requested_ = false;
  if (!pipeline_->has_result(0)) {
    status_ = "nothing to save yet: method A has no result for this picture";
    return;
  }
  const ImageRgba8 result = pipeline_->read_result(0);
  const std::string name = result_file_name(choices_.at(static_cast<std::size_t>(applied_.method_a)).id,
                                            applied_.params, result.width(), result.height());
  for (int attempt = 0; attempt < 8; ++attempt) {  // another program may take a free name first
    const std::string path = first_free_path(name);
    try {
      save_image(path, result, 4, Overwrite::Never);
      std::error_code ignored;
      status_ = "saved " + std::filesystem::absolute(path, ignored).string();
      return;
    } catch (const ImageSaveError& error) {
      std::error_code ignored;
      if (std::filesystem::exists(path, ignored)) continue;
      status_ = std::string("could not save: ") + error.what();
      return;
    }
  }
  status_ = "could not save: no free file name next to " + name;
}

void Viewer::run_frame(double interval_ms, bool live, bool capture) {
  using Clock = std::chrono::steady_clock;
  begin_ui_frame(interval_ms / 1000.0);
  if (live && !pending_keys_.empty()) {  // --keys: as if typed, in order
    for (unsigned char c : pending_keys_) ImGui::GetIO().InputQueueCharacters.push_back(static_cast<ImWchar>(c));
    pending_keys_.clear();
  }
  if (live) gl_timer_->begin_frame();
  if (live) handle_input();
  const PanelRequests requests = control_panel(filter_, view_, scratch_, panel_info());
  if (live) {
    apply_requests(requests);
    apply_changes();
    prepare_b_when_shown();
    const bool a_wanted = problem_a_.empty() && (applied_.continuous || result_generation_a_ != generation_a_);
    const bool b_wanted =
        b_needed() && problem_b_.empty() && (applied_.continuous || result_generation_b_ != generation_b_);
    if (a_wanted || b_wanted) {
      process(a_wanted, b_wanted);
    } else {
      timer_a_.poll();
      timer_b_.poll();
    }
    if (save_requested_) save_result_interactive();
    collect_accuracy(false);
    if (Clock::now() - last_overlay_refresh_ > std::chrono::milliseconds(250)) refresh_overlay_timings();
  }
  timing_overlay(panel_info(), filter_, view_, overlay_timings_);
  ImGui::Render();
  draw_frame(live);
  if (live) gl_timer_->end_frame();
  if (capture) view_capture_ = surface_->capture();
  surface_->present();
  pacer_->frame_submitted();
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
      handle_dropped_files();
    }
    pacer_->wait_for_slot();  // at most two frames queued on the GPU
    const Clock::time_point start = Clock::now();
    const double interval_ms = std::chrono::duration<double, std::milli>(start - previous_start).count();
    if (frame > 0) frame_ms_.add(interval_ms);
    previous_start = start;
    run_frame(frame > 0 ? interval_ms : 1000.0 / 60.0, true, false);
    if (automated && run_failed_) break;
  }
  return automated ? finish_automated_run() : 0;
}

int Viewer::finish_automated_run() {
  pacer_->drain();
  pipeline_->synchronize();
  timer_a_.flush();
  timer_b_.flush();
  gl_timer_->flush();
  if (run_failed_) {
    std::fprintf(stderr, "gausslab: error: %s %s\n",
                 choices_.at(static_cast<std::size_t>(applied_.method_a)).id.c_str(), run_failure_.c_str());
    return 1;
  }
  collect_accuracy(true);
  probe_.wait_idle();

  // The summary of the N timed frames, before anything else is drawn.
  RunSummary summary;
  summary.method_id = choices_.at(static_cast<std::size_t>(applied_.method_a)).id;
  if (!options_.compare_id.empty() || view_.mode != CompareMode::A) {
    summary.compare = applied_.method_b >= 0 ? choices_.at(static_cast<std::size_t>(applied_.method_b)).id : "original";
    summary.display = to_string(view_.mode);
  }
  summary.path = to_string(pipeline_->path());
  summary.path_reason = pipeline_->path_reason();
  summary.renderer = surface_->info().renderer;
  summary.gl_context = surface_->info().platform;
  summary.width = pipeline_->width();
  summary.height = pipeline_->height();
  summary.params = applied_.params;
  summary.frames = options_.frames;
  summary.frame_ms = frame_ms_.median();
  for (const StageTiming& stage : timer_a_.stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  if (b_needed())
    for (const StageTiming& stage : timer_b_.stages()) summary.stages.emplace_back("b_" + stage.name, stage.median_ms);
  for (const StageTiming& stage : gl_timer_->stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  const std::optional<AccuracyResult> accuracy = probe_.latest();
  if (accuracy && accuracy->generation == generation_a_ && accuracy->error.empty())
    summary.accuracy = accuracy->stats;
  else
    summary.accuracy_note = accuracy && !accuracy->error.empty() ? accuracy->error : "no measurement";

  const Overwrite overwrite = options_.overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (!options_.screenshot.empty()) {
    if (!pipeline_->has_result(0)) {
      std::fprintf(stderr, "gausslab: error: no result to save (%s)\n", problem_a_.c_str());
      return 1;
    }
    save_image(options_.screenshot, pipeline_->read_result(0), 4, overwrite);
  }
  if (!options_.screenshot_view.empty()) {
    // Two untimed frames without processing show the final medians and the measured error, and
    // let ImGui's auto-sized windows settle to their content; the second one is captured.
    refresh_overlay_timings();
    run_frame(1000.0 / 60.0, false, false);
    run_frame(1000.0 / 60.0, false, true);
    save_image(options_.screenshot_view, view_capture_, 3, overwrite);
  }
  std::printf("%s\n", summary_line(summary).c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace gausslab
