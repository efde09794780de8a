#include "modes/sequence_mode.hpp"

#include <cstdio>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "modes/view_actions.hpp"
#include "panels/docked_panel.hpp"
#include "panels/mode_shell.hpp"
#include "viewer/run_report.hpp"
#include "viewer/sequence_startup.hpp"
#include "viewer/standard_output.hpp"

namespace gausslab {

namespace {

void say_history_warning(int history, int frame_count) {  // as gausslab-sequence says it, on stderr
  if (const std::string warning = history_warning(history, frame_count); !warning.empty())
    std::fprintf(stderr, "gausslab: warning: %s\n", warning.c_str());
}

}  // namespace

namespace {

// A CPU pre-filter runs the whole sequence on the CPU (its frames are in host memory); otherwise
// the GPU whenever the result pipeline runs GPU work.
SequenceBackend choose_backend(const ViewerOptions& options, const ResultPipeline& pipeline) {
  const MethodEntry* prefilter = options.method_id.empty() ? nullptr : find_method(options.method_id);
  const bool cpu_prefilter = prefilter && prefilter->info.backend == Backend::Cpu;
  return pipeline.runs_gpu_methods() && !cpu_prefilter ? SequenceBackend::Gpu : SequenceBackend::Cpu;
}

}  // namespace

SequenceMode::SequenceMode(const ViewerOptions& options, GlSurface& surface)
    : options_(options),
      surface_(surface),
      pipeline_(std::make_unique<ResultPipeline>(options.best_path)),
      renderer_(std::make_unique<ImageRenderer>()),
      timer_(4, history_frames(options)),
      actions_([this](const Action& action) { return offer(action); }, options.events),
      messages_(options.events) {
  const SequenceBackend backend = choose_backend(options, *pipeline_);
  player_ = std::make_unique<SequencePlayer>(backend);
  const Backend methods = backend == SequenceBackend::Gpu ? Backend::Cuda : Backend::Cpu;
  for (const MethodEntry& entry : method_registry())
    if (entry.info.backend == methods) prefilters_.push_back(entry.info.id);

  const PlayerSettings start = sequence_settings(options);
  controls_.history = start.settings.history;
  controls_.degree = start.settings.degree;
  controls_.gamma = start.settings.gamma;
  controls_.sigma = options.params.sigma;
  for (std::size_t i = 0; i < prefilters_.size(); ++i)
    if (prefilters_[i] == options.method_id) controls_.prefilter = static_cast<int>(i);
  controls_.playing = options.frames > 0;  // timed runs play; interactive use starts paused
  view_.mode = options.display;
  view_.display = options.display_transform;  // its range is the nominal one (the options say so)
  player_->configure(settings_from(controls_), nullptr);
  applied_ = controls_;
  open_input(options.sequence_input);
  panels_.open_text = options.sequence_input;
}

SequenceMode::~SequenceMode() {
  try {
    shut_down();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
  }
}

void SequenceMode::shut_down() {
  // The displays and the engine may still have queued work on their buffers.
  if (player_) player_->synchronize();
  if (pipeline_) pipeline_->synchronize();
}

std::string SequenceMode::window_title() const {
  return "gausslab - sequence " + input_ + " \u2013 " + zoom_percent_text(view_.transform.zoom);  // the zoom, as tev
}

PlayerSettings SequenceMode::settings_from(const SequenceControls& c) const {
  PlayerSettings p;
  p.settings.history = c.history;
  p.settings.degree = c.degree;
  p.settings.gamma = c.gamma;
  if (c.prefilter >= 0 && c.prefilter < static_cast<int>(prefilters_.size())) {
    p.prefilter_id = prefilters_[static_cast<std::size_t>(c.prefilter)];
    p.prefilter_params = options_.params;
    p.prefilter_params.sigma = c.sigma;
  }
  return p;
}

void SequenceMode::open_input(const std::string& input) {
  player_->open(open_player_input(input, sequence_sky(options_)), input, nullptr);
  const int w = player_->width(), h = player_->height();
  pipeline_->set_source(ImageRgba8(w, h, Rgba8{128, 128, 128, 255}));  // sizes the result buffers
  const FilterProblem problem{w, h, PixelFormat::Rgba8, {}};
  player_->display_a().prepare(problem);
  player_->display_b().prepare(problem);
  player_->set_display(controls_.show_filtered, controls_.whitened_range);
  input_ = input;
  view_.fit = true;
  needs_display_ = true;
  timer_.reset_history();
  say_history_warning(controls_.history, player_->frame_count());
}

void SequenceMode::open_file(const std::string& path) {
  try {
    open_input(path);
    error_.clear();
    panels_.open_text = path;
    messages_.say("opened " + path);
  } catch (const std::exception& error) {
    error_ = std::string("could not open: ") + error.what() + " (the current sequence stays)";
    messages_.say(error_, true);
  }
}

ActionOffer SequenceMode::offer(const Action& action) const {
  ActionOffer offer{true, {}, {}, false, {}};
  switch (action.id) {
    case ActionId::Open:
      offer.label = "Open a sequence...";
      offer.help = "type a folder, a video or synthetic in the panel (or drop one)";
      break;
    case ActionId::Reload: offer.label = "Open the sequence again"; offer.help = "from its first frame"; break;
    case ActionId::ToggleContinuous:
      offer.label = "Play";
      offer.help = "play the sequence, or pause it";
      offer.checked = controls_.playing;
      break;
    case ActionId::StepFrame: offer.help = "one frame on (while paused)"; break;
    case ActionId::CloseWindow: offer.help = "the help"; break;
    case ActionId::ToggleOverlay: offer.checked = !view_.overlay_hidden; break;
    case ActionId::Quit: case ActionId::NextView: case ActionId::ViewA: case ActionId::ViewB:
    case ActionId::ViewSplit: case ActionId::ViewDifference: case ActionId::GainUp: case ActionId::GainDown:
    case ActionId::Fit: case ActionId::OneToOne: case ActionId::ToggleSampling: case ActionId::Help:
    case ActionId::ZoomIn: case ActionId::ZoomOut: case ActionId::TogglePixelGrid:
    case ActionId::ExposureUp: case ActionId::ExposureDown: case ActionId::NextChannel:
    case ActionId::OffsetUp: case ActionId::OffsetDown: case ActionId::ToggleChannelMap: case ActionId::NextTransfer:
    case ActionId::ResetDisplay: case ActionId::TogglePanels:
      break;
    default: offer.offered = false;  // methods, sigma, saving, ... belong to the comparison mode
  }
  return offer;
}

void SequenceMode::perform(const Action& action) {
  if (perform_view_action(action.id, view_, GainRange{0.125, 1024.0}, player_->width(), player_->height(), area_.width,
                          area_.height))
    return;
  switch (action.id) {
    case ActionId::TogglePanels: view_.panels_hidden = !view_.panels_hidden; break;
    case ActionId::ToggleOverlay: view_.overlay_hidden = !view_.overlay_hidden; break;
    case ActionId::Open: panels_.focus_open_field = true; break;
    case ActionId::Reload: open_file(input_); break;
    case ActionId::ToggleContinuous: controls_.playing = !controls_.playing; break;
    case ActionId::StepFrame: step_requested_ = true; break;
    default: break;  // not offered (the dispatcher does Quit, Help and Esc)
  }
}

std::string SequenceMode::run_command(const std::string& command, const std::string& argument) {
  try {
    if (command == "play") controls_.playing = true;
    else if (command == "pause") controls_.playing = false;
    else if (command == "open") open_file(argument);
    else if (command == "history") controls_.history = parse_int(command, argument, 1, seq::kMaxHistory);
    else if (command == "degree") controls_.degree = parse_int(command, argument, 0, seq::kMaxDegree);
    else if (command == "gamma") controls_.gamma = parse_double(command, argument);
    else if (command == "view") {
      const CompareMode modes[] = {CompareMode::A, CompareMode::B, CompareMode::Split, CompareMode::Difference};
      for (CompareMode m : modes)
        if (argument == to_string(m)) view_.mode = m;
    } else if (command == "gain") view_.gain = parse_double(command, argument);
    else if (const Action* action = find_action(command); action && actions_.offered(*action)) actions_.queue(*action);
    else return "the sequence mode has no command '" + command +
                "' (play, pause, step, open PATH, history N, degree n, gamma G, view a|b|split|diff, gain G, or an "
                "action of its help)";
  } catch (const std::exception& error) {
    return error.what();
  }
  return {};
}

void SequenceMode::apply_settings(FrameContext& frame) {
  if (controls_.show_filtered != applied_.show_filtered || controls_.whitened_range != applied_.whitened_range) {
    player_->set_display(controls_.show_filtered, controls_.whitened_range);
    applied_.show_filtered = controls_.show_filtered;
    applied_.whitened_range = controls_.whitened_range;
    needs_display_ = true;
  }
  if (controls_.same_processing(applied_)) return;
  try {
    player_->configure(settings_from(controls_), nullptr);  // starts the sequence over
    error_.clear();
    if (controls_.history != applied_.history) say_history_warning(controls_.history, player_->frame_count());
    needs_display_ = true;
    timer_.reset_history();
    frame.gl_timer.reset_history();
    frame.frame_ms.clear();
  } catch (const std::exception& error) {
    error_ = std::string("not applied: ") + error.what();
    messages_.say(error_, true);
    controls_.history = applied_.history;
    controls_.degree = applied_.degree;
    controls_.gamma = applied_.gamma;
    controls_.prefilter = applied_.prefilter;
    controls_.sigma = applied_.sigma;
  }
  applied_.history = controls_.history;
  applied_.degree = controls_.degree;
  applied_.gamma = controls_.gamma;
  applied_.prefilter = controls_.prefilter;
  applied_.sigma = controls_.sigma;
}

void SequenceMode::show(FrameContext& frame, bool advance) {
  if (!advance && !needs_display_) {
    timer_.poll();
    return;
  }
  timer_.begin_frame();
  try {
    if (advance && !player_->advance(controls_.loop, &timer_)) controls_.playing = false;  // the end, no loop
    const ResultPipeline::Job a{&player_->display_a(), &timer_}, b{&player_->display_b(), &timer_};
    pipeline_->process({a, b}, &frame.gl_timer);
    needs_display_ = false;
  } catch (const std::exception& error) {
    run_failure_ = error.what();
    error_ = std::string("failed: ") + error.what();
    messages_.say(error_, true);
    controls_.playing = false;
    std::fprintf(stderr, "gausslab: %s\n", error_.c_str());
  }
  timer_.end_frame();
}

SequencePanelInfo SequenceMode::panel_info() const {
  SequencePanelInfo info;
  info.input = input_;
  info.description = player_->description();
  info.width = player_->width();
  info.height = player_->height();
  info.frame_index = player_->current_index();
  info.frame_count = player_->frame_count();
  info.frame_name = player_->current_name();
  info.frames_pushed = player_->frames_pushed();
  info.history_full = player_->history_full();
  info.noise = player_->noise_estimate();
  info.dx = &player_->dx();
  info.dy = &player_->dy();
  info.prefilters = &prefilters_;
  info.engine = player_->backend() == SequenceBackend::Gpu ? "GPU" : "CPU (OpenMP)";
  info.path = pipeline_->path();
  info.path_reason = pipeline_->path_reason();
  info.gl = &surface_.info();
  info.cuda_device = describe(cuda_device_status());
  info.status = player_->status();
  info.error = error_;
  info.warning = history_warning(applied_.history, player_->frame_count());
  return info;
}

void SequenceMode::update(FrameContext& frame) {
  area_ = docked_layout(view_, frame.surface.width(), frame.surface.height());
  if (frame.live) {
    actions_.dispatch(frame.input, [this](const Action& action) { perform(action); });
    handle_view_mouse(view_, drag_, area_, side_panel_edge(view_));
  }
  bool step = step_requested_;
  step_requested_ = false;
  const SequencePanelInfo info = panel_info();
  const auto overlay = [&] {
    sequence_overlay_contents(info, controls_, view_, overlay_);
  };
  SequenceRequests requests;
  if (!view_.panels_hidden) {
    menu_bar(actions_);
    docked_side_panel(view_, panels_.docked_overlay_height,
                      [&] { requests = sequence_panel(controls_, view_, panels_, info); }, overlay);
    shift_plot(info, view_);
  }
  if (frame.live) {
    if (requests.open_input) open_file(*requests.open_input);
    if (requests.fit) view_.fit = true;
    if (requests.one_to_one) {
      view_.fit = false;
      view_.transform = one_to_one_view(player_->width(), player_->height(), area_.width, area_.height);
    }
    apply_settings(frame);
    show(frame, controls_.playing || step || requests.step);
    player_->collect(false);
    const auto now = std::chrono::steady_clock::now();
    if (now - overlay_.refreshed > std::chrono::milliseconds(250))
      overlay_ = SequenceOverlayReadouts{timer_.stages(), frame.gl_timer.stages(), frame.frame_ms.median(), now};
  }
  if (!view_.panels_hidden && !view_.overlay_hidden) floating_overlay(view_, overlay);
  if (!view_.panels_hidden) status_bar(sequence_status(messages_, view_, area_, player_->width(), player_->height()), actions_);
  help_window(actions_, "zoom around the cursor, pan; drag the divider (split) or the panel's left edge");
}

void SequenceMode::draw(FrameContext& /*frame*/) {
  if (area_.width <= 0 || area_.height <= 0) return;
  const int view_width = area_.width, view_height = area_.height;
  if (view_.fit) view_.transform = fit_view(player_->width(), player_->height(), view_width, view_height);
  ImageDrawParams params;
  params.texture_a = pipeline_->has_result(0) ? pipeline_->result_texture(0) : pipeline_->source_texture();
  params.texture_b = pipeline_->has_result(1) ? pipeline_->result_texture(1) : pipeline_->source_texture();
  params.image_width = player_->width();
  params.image_height = player_->height();
  params.view = view_.transform;
  params.mode = view_.mode;
  params.split_x = view_.split_fraction * view_width;
  params.gain = view_.gain;
  params.sampling = view_.sampling;
  params.pixel_grid = view_.pixel_grid;
  params.display = view_.display;
  params.viewport_x = area_.x;
  params.viewport_y = surface_.height() - (area_.y + area_.height);
  params.viewport_width = view_width;
  params.viewport_height = view_height;
  renderer_->draw(params);
}

int SequenceMode::finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) {
  player_->synchronize();
  pipeline_->synchronize();
  timer_.flush();
  player_->collect(true);
  if (run_failure_) {
    std::fprintf(stderr, "gausslab: error: sequence %s\n", run_failure_->c_str());
    return 1;
  }
  const Overwrite overwrite = options_.overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (!options_.screenshot.empty()) {
    if (!pipeline_->has_result(1)) {
      std::fprintf(stderr, "gausslab: error: no whitened frame to save yet\n");
      return 1;
    }
    if (options_.screenshot == kStandardOutputName)
      write_standard_output(pipeline_->read_result(1), 4, options_.screenshot_format);
    else
      save_image(options_.screenshot, pipeline_->read_result(1), 4, overwrite);
  }
  // The line an automated run prints: where it ran, the sequence, the per-stage medians.
  std::string line = "gausslab: mode=sequence input=\"" + input_ + "\" path=" + to_string(pipeline_->path()) +
                     " engine=" + (player_->backend() == SequenceBackend::Gpu ? "gpu" : "cpu") + " renderer=\"" +
                     surface_.info().renderer + "\" size=" + std::to_string(player_->width()) + "x" +
                     std::to_string(player_->height()) + " frames=" + std::to_string(options_.frames) +
                     " pushed=" + std::to_string(player_->frames_pushed()) + " history=" +
                     std::to_string(applied_.history) + " degree=" + std::to_string(applied_.degree);
  char number[64];
  std::snprintf(number, sizeof number, " gamma=%g frame_ms=%.3f", applied_.gamma, frame.frame_ms.median());
  line += number;
  for (const StageTiming& stage : timer_.stages()) {
    std::snprintf(number, sizeof number, "=%.4f", stage.median_ms);
    line += " " + stage_key(stage.name) + number;
  }
  for (const StageTiming& stage : frame.gl_timer.stages()) {  // GL's upload is the texture's, not the frame's
    std::snprintf(number, sizeof number, "=%.4f", stage.median_ms);
    line += " gl_" + stage_key(stage.name) + number;
  }
  if (!options_.screenshot_view.empty()) {
    overlay_ = SequenceOverlayReadouts{timer_.stages(), frame.gl_timer.stages(), frame.frame_ms.median(),
                               std::chrono::steady_clock::now()};
    if (options_.screenshot_view == kStandardOutputName)
      write_standard_output(capture_view(), 3, options_.screenshot_format);
    else
      save_image(options_.screenshot_view, capture_view(), 3, overwrite);
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  return 0;
}

}  // namespace gausslab
