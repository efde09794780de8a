#include "comparison_mode.hpp"

#include <imgui.h>
#define GLFW_INCLUDE_NONE  // key codes only; all GL goes through render/
#include <GLFW/glfw3.h>

#include <cstdio>

#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "image_resample.hpp"
#include "keyboard.hpp"
#include "result_saving.hpp"

namespace gausslab {

namespace {

double sum_of_method_stages(const std::vector<StageTiming>& stages) {
  double total = 0;
  for (const StageTiming& stage : stages)
    if (!is_pipeline_stage(stage.name)) total += stage.median_ms;
  return total;
}

}  // namespace

ComparisonMode::ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface)
    : options_(options),
      surface_(surface),
      pipeline_(std::make_unique<ResultPipeline>(options.best_path)),
      renderer_(std::make_unique<ImageRenderer>()),
      slot_a_(history_frames(options)),
      slot_b_(history_frames(options)) {
  const bool automated = options.frames > 0;
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
  want_slots();
  slot_a_.prepare(problem(), *pipeline_);
  update_method_choices();
  path_seen_ = pipeline_->path();
  cuda_description_ = describe(cuda_device_status());
}

ComparisonMode::~ComparisonMode() {
  try {
    shut_down();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
  }
  slot_a_.release_instances();
  slot_b_.release_instances();
}

void ComparisonMode::shut_down() {
  // Queued CUDA work may still use the methods' buffers: finish it before they are freed.
  if (pipeline_) pipeline_->synchronize();
}

std::string ComparisonMode::window_title() const { return "gausslab - " + image_name_; }

FilterProblem ComparisonMode::problem() const {
  return FilterProblem{pipeline_->width(), pipeline_->height(), PixelFormat::Rgba8, applied_.params};
}

void ComparisonMode::want_slots() {
  slot_a_.want(SlotSetting{picture_number_, applied_.method_a, applied_.params});
  slot_b_.want(SlotSetting{picture_number_, applied_.method_b, applied_.params});
}

bool ComparisonMode::b_shown() const { return view_.mode != CompareMode::A && slot_b_.shows_method(); }

void ComparisonMode::update_method_choices() {
  choices_.clear();
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const MethodInfo& info = registry[i].info;
    MethodChoice choice{info.id, info.label, info.summary, info.accuracy, {}};
    if (info.backend == Backend::Cuda && !pipeline_->runs_gpu_methods())
      choice.blocked = pipeline_->path_reason();
    else
      choice.blocked = slot_a_.instance(static_cast<int>(i))->unsupported_reason(problem());
    choices_.push_back(std::move(choice));
  }
}

bool ComparisonMode::rebuild_picture() {
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
  ++picture_number_;
  accuracy_.forget_crop();
  return true;
}

void ComparisonMode::open_file(const std::string& path) {
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
    view_.fit = true;  // the slots follow the new picture in apply_changes
  } catch (const ImageLoadError& error) {
    load_error_ = std::string("could not open: ") + error.what() + " (the current picture stays)";
  }
}

void ComparisonMode::apply_requests(const PanelRequests& requests) {
  if (requests.open_path) open_file(*requests.open_path);
  if (requests.fit) view_.fit = true;
  if (requests.one_to_one) {
    view_.fit = false;
    view_.transform = one_to_one_view(pipeline_->width(), pipeline_->height(), surface_.width(), surface_.height());
  }
  if (requests.save_result) save_requested_ = true;
}

void ComparisonMode::apply_changes(FrameContext& frame) {
  if (filter_ != applied_) {
    const bool size_changed =
        filter_.original_size != applied_.original_size ||
        (!filter_.original_size && (filter_.width != applied_.width || filter_.height != applied_.height));
    if (size_changed && !rebuild_picture()) {
      filter_.original_size = applied_.original_size;
      filter_.width = applied_.width;
      filter_.height = applied_.height;
    }
    applied_ = filter_;
  }
  // The readouts describe one setting: a slot's stage history goes when its setting changes (so A's
  // stay when only B changes), the frame times when either does.
  const SlotSetting a_before = slot_a_.wanted(), b_before = slot_b_.wanted();
  want_slots();
  const bool a_changed = slot_a_.wanted() != a_before, b_changed = slot_b_.wanted() != b_before;
  if (a_changed) slot_a_.timer().reset_history();
  if (b_changed) slot_b_.timer().reset_history();
  if (a_changed || b_changed) {
    frame.gl_timer.reset_history();
    frame.frame_ms.clear();
  }
  if (a_changed) {
    slot_a_.prepare(problem(), *pipeline_);
    update_method_choices();
  }
  // B is prepared only when a view shows it (its buffers, plans or spectra may be large).
  if (b_shown()) slot_b_.prepare(problem(), *pipeline_);
}

void ComparisonMode::handle_keys(int view_width, int view_height) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantCaptureKeyboard) return;
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

void ComparisonMode::process(FrameContext& frame) {
  const bool run_a = slot_a_.needs_run(applied_.continuous) ||
                     (slot_a_.shows_method() && slot_a_.prepared() && slot_a_.problem().empty() &&
                      accuracy_.wants_crop(slot_a_.wanted()));
  const bool run_b = b_shown() && slot_b_.needs_run(applied_.continuous);
  if (!run_a && !run_b) {
    slot_a_.timer().poll();
    slot_b_.timer().poll();
    return;
  }
  if (run_a) slot_a_.timer().begin_frame();
  if (run_b) slot_b_.timer().begin_frame();
  ResultPipeline::Job a{run_a ? slot_a_.instance(slot_a_.wanted().method) : nullptr, &slot_a_.timer(), {}};
  const ResultPipeline::Job b{run_b ? slot_b_.instance(slot_b_.wanted().method) : nullptr, &slot_b_.timer(), {}};
  if (run_a && accuracy_.wants_crop(slot_a_.wanted()))
    a.on_result = accuracy_.crop_hook(slot_a_.wanted(), pipeline_->width(), pipeline_->height());
  try {
    pipeline_->process({a, b}, &frame.gl_timer);
    if (run_a) slot_a_.mark_computed();
    if (run_b) slot_b_.mark_computed();
  } catch (const std::exception& error) {
    // Blocked until the next change (which prepares the methods again).
    const std::string message = std::string("failed: ") + error.what();
    if (run_a) slot_a_.mark_failed(message);
    if (run_b) slot_b_.mark_failed(message);
    run_failed_ = true;
    run_failure_ = message;
    std::fprintf(stderr, "gausslab: %s\n", message.c_str());
  }
  if (run_a) slot_a_.timer().end_frame();
  if (run_b) slot_b_.timer().end_frame();
  // A failed registration or map falls back to staging: the reasons shown must follow.
  if (pipeline_->path() != path_seen_) {
    path_seen_ = pipeline_->path();
    update_method_choices();
  }
}

void ComparisonMode::collect_accuracy(bool wait) {
  try {
    accuracy_.collect(slot_a_.wanted(), picture_, slot_a_.bound(), wait);
  } catch (const std::exception& error) {
    slot_a_.mark_failed(std::string("failed: ") + error.what());
  }
}

std::string ComparisonMode::accuracy_text(bool& ok) const {
  ok = true;
  char text[256];
  if (const std::optional<AccuracyResult> latest = accuracy_.result_for(slot_a_.wanted())) {
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
  if (!slot_a_.problem().empty()) return "A vs exact Gaussian: no result to measure";
  return "A vs exact Gaussian: measuring...";
}

PanelInfo ComparisonMode::panel_info() const {
  PanelInfo info;
  info.methods = &choices_;
  info.image_name = image_name_;
  info.original_width = original_.width();
  info.original_height = original_.height();
  info.width = pipeline_->width();
  info.height = pipeline_->height();
  info.path = pipeline_->path();
  info.path_reason = pipeline_->path_reason();
  info.gl = &surface_.info();
  info.cuda_device = cuda_description_;
  info.load_error = load_error_;
  info.status = status_;
  info.method_a_problem = slot_a_.problem();
  info.method_b_problem = slot_b_.problem();
  info.accuracy_text = accuracy_text(info.accuracy_ok);
  info.automated = options_.frames > 0;
  return info;
}

void ComparisonMode::refresh_overlay_timings(const FrameContext& frame) {
  overlay_timings_.a = slot_a_.timer().stages();
  overlay_timings_.b = b_shown() ? slot_b_.timer().stages() : std::vector<StageTiming>();
  overlay_timings_.gl = frame.gl_timer.stages();
  overlay_timings_.frame_ms = frame.frame_ms.median();
  overlay_timings_.method_ms = sum_of_method_stages(overlay_timings_.a);
  last_overlay_refresh_ = std::chrono::steady_clock::now();
}

void ComparisonMode::save_result_interactive() {
  save_requested_ = false;
  if (!pipeline_->has_result(0)) {
    status_ = "nothing to save yet: method A has no result for this picture";
    return;
  }
  const ImageRgba8 result = pipeline_->read_result(0);
  status_ = save_under_free_name(result, result_file_name(choices_.at(static_cast<std::size_t>(applied_.method_a)).id,
                                                          applied_.params, result.width(), result.height()));
}

void ComparisonMode::update(FrameContext& frame) {
  if (frame.live) {
    handle_keys(surface_.width(), surface_.height());
    handle_view_mouse(view_, drag_, surface_.width(), surface_.height());
  }
  const PanelRequests requests = control_panel(filter_, view_, scratch_, panel_info());
  if (frame.live) {
    apply_requests(requests);
    apply_changes(frame);
    process(frame);
    if (save_requested_) save_result_interactive();
    collect_accuracy(false);
    if (std::chrono::steady_clock::now() - last_overlay_refresh_ > std::chrono::milliseconds(250))
      refresh_overlay_timings(frame);
  }
  timing_overlay(panel_info(), filter_, view_, overlay_timings_);
}

void ComparisonMode::draw(FrameContext& frame) {
  const int view_width = frame.surface.width(), view_height = frame.surface.height();
  if (view_.fit) view_.transform = fit_view(pipeline_->width(), pipeline_->height(), view_width, view_height);
  ImageDrawParams params;
  params.texture_a = pipeline_->has_result(0) ? pipeline_->result_texture(0) : pipeline_->source_texture();
  params.texture_b = slot_b_.shows_method() && pipeline_->has_result(1) ? pipeline_->result_texture(1)
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
  renderer_->draw(params);
}

}  // namespace gausslab
