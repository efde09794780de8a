#include "modes/comparison_mode.hpp"

#include <cstdio>

#include "comparison/comparison_report.hpp"
#include "comparison/save_folder.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "panels/mode_shell.hpp"
#include "viewer/frame_trace.hpp"
#include "viewer/standard_output.hpp"

namespace gausslab {

namespace {

bool automated_run(const ViewerOptions& options) { return options.frames > 0 || !options.script.empty(); }

ComparisonStart comparison_start(const ViewerOptions& options, StartupPlan& plan, const GlSurface& surface) {
  FilterState filter;
  filter.method_a = plan.method_a;
  filter.method_b = plan.method_b;
  filter.params = options.params;
  filter.original_size = !options.resize;
  filter.width = options.resize ? options.size_width : plan.original.width();
  filter.height = options.resize ? options.size_height : plan.original.height();
  filter.continuous = automated_run(options);  // timed and scripted runs process every frame
  return ComparisonStart{std::move(plan.original), plan.levels, plan.image_name, options.image_path, filter,
                         options.best_path, history_frames(options), automated_run(options), options.events,
                         surface.info(), options.compare_file, options.watch};
}

}  // namespace

ComparisonMode::ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface)
    : options_(options),
      surface_(surface),
      comparison_(comparison_start(options, plan, surface)),
      renderer_(std::make_unique<ImageRenderer>()),
      // Automated runs save where they are told (tests must not write into a user's chosen folder).
      saves_(!options.save_folder.empty() ? options.save_folder
             : automated_run(options)     ? std::string()
                                          : remembered_save_folder()),
      actions_([this](const Action& action) { return commands_.offer(action); }, options.events),
      commands_(comparison_, view_, panels_, saves_, actions_) {
  view_.mode = options.display;
  view_.display = options.display_transform;
  panels_.timed_run = options.frames > 0;
}

ComparisonMode::~ComparisonMode() {
  try {
    shut_down();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
  }
}

void ComparisonMode::shut_down() {
  // Queued CUDA work may still use the methods' buffers: finish it before they are freed.
  comparison_.runs().pipeline().synchronize();
}

std::string ComparisonMode::window_title() const {
  const FilterState& applied = comparison_.settings().applied();
  const MethodChoices& choices = comparison_.settings().choices();
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.4g", applied.params.sigma);
  return "gausslab \u2013 " + comparison_.picture().name + " \u2013 A: " + choices.id_with_choice(applied.method_a) +
         " vs B: " + choices.id_with_choice(applied.method_b) + " \u2013 \u03c3 " + sigma +
         (applied.pool == PoolMode::None ? "" : std::string(" \u2013 pooled ") + to_string(applied.pool));
}

void ComparisonMode::update(FrameContext& frame) {
  comparison_.frame_drawn();
  if (frame.automated) comparison_.poll_files();  // the interactive loop polls on every wake-up (viewer.cpp)
  if (commands_.mouse()) place_mouse(*commands_.mouse());
  FrameTrace& trace = FrameTrace::instance();
  area_ = docked_layout(view_, frame.surface.width(), frame.surface.height());
  trace.mark("layout");
  if (frame.live) {
    actions_.dispatch(frame.input, [&](const Action& action) { commands_.perform(action, frame, area_); });
    handle_view_mouse(view_, drag_, area_, side_panel_edge(view_));
  }
  trace.mark("actions");
  if (!view_.panels_hidden) {
    menu_bar(actions_);
    trace.mark("menu_bar");
    comparison_side_panel(comparison_, view_, panels_, actions_, saves_.folder(), frame.window);
  }
  trace.mark("side_panel");
  if (options_.events && panels_.filter.sigma_field != sigma_field_printed_) {  // where a driver clicks to type sigma
    sigma_field_printed_ = panels_.filter.sigma_field;
    const std::array<float, 4>& f = sigma_field_printed_;
    std::printf("gausslab-event: field sigma %.0f %.0f %.0f %.0f\n", f[0], f[1], f[2], f[3]);
    std::fflush(stdout);
  }
  if (options_.events) print_numbers_event();
  if (comparison_.picture().opened != opened_seen_) {
    opened_seen_ = comparison_.picture().opened;
    view_.fit = true;  // the slots follow the new picture in the next apply
  }
  if (frame.live) {
    comparison_.show_slots(shows_slot(view_, 0), shows_slot(view_, 1));
    comparison_.frame(FrameClocks{frame.gl_timer, frame.frame_ms});
    saves_.follow(comparison_, view_);
    unrounded_.follow(comparison_);
  }
  display_range_.follow(current_numbers(comparison_), view_.display);
  panels_.display_range = too_large_to_measure(comparison_) && view_.display.range != RangeMode::Nominal
                              ? "nominal [0, 1]: " + too_large_note(comparison_)
                              : display_range_.note();
  const SlotRuns& runs = comparison_.runs();
  const StageTimer* b = shows_slot(view_, 1) ? &runs.lane(1).slot.timer() : nullptr;
  comparison_.timing().refresh_overlay(runs.lane(0).slot.timer(), b, frame.gl_timer, frame.frame_ms);
  if (!view_.panels_hidden && !view_.overlay_hidden) comparison_overlay(comparison_, view_, options_.frames > 0);
  if (!view_.panels_hidden) status_bar(comparison_status(comparison_, view_, area_, panels_.display_range), actions_);
  picture_labels(comparison_, view_, area_);
  difference_legend(view_, area_);
  display_map_legend(view_, drawn_range(), comparison_.picture().processed_levels != nullptr, area_);
  inspector(comparison_, view_, area_);
  help_window(actions_, "zoom around the cursor, pan; drag the divider (split) or the panel's left edge");
  compare_all_window(comparison_.work().compare_all(), panels_.compare_all_open, view_, actions_);
  reference_file_window(comparison_, panels_.reference_file);
  if (const std::optional<std::string> folder = folder_window(panels_.folder)) {
    saves_.set_folder(*folder);
    const std::string problem = remember_save_folder(*folder);
    comparison_.messages().say(
        "saving to " + *folder + (problem.empty() ? std::string() : " (not remembered: " + problem + ")"), !problem.empty());
  }
  trace.mark("windows");
  if (commands_.take_save_view()) frame.capture_requested = true;
}

void ComparisonMode::print_numbers_event() {
  // A driver waits on this line for the comparison of a new setting (a file reloaded, a slot set).
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison_);
  if (!numbers || !numbers->a_vs_b || (numbers_printed_ && *numbers_printed_ == numbers->key)) return;
  numbers_printed_ = numbers->key;
  const DifferenceFigures& f = numbers->a_vs_b->unrounded;
  const MethodChoices& choices = comparison_.settings().choices();
  std::printf("gausslab-event: numbers A=%s B=%s ab_max_abs=%.9g ab_mean_abs=%.9g ab_psnr=%.3f ab_max_at=%d,%d,%d "
              "ab_max_abs_8bit=%.9g\n",
              choices.id(numbers->key.a.method).c_str(), choices.id(numbers->key.b.method).c_str(), f.max_abs,
              f.mean_abs, f.psnr_db, f.max_x, f.max_y, f.max_channel, numbers->a_vs_b->rounded.max_abs);
  std::fflush(stdout);
}

void ComparisonMode::open_file(const std::string& path) { drop_file(comparison_, view_, area_, path); }

bool ComparisonMode::wants_frames() const {
  const ComparisonSettings& settings = comparison_.settings();
  if (busy() || gausslab::starting(comparison_) || settings.applied().continuous ||
      !(settings.requested() == settings.applied()) || comparison_.work().compare_all().busy() ||
      comparison_.messages().current())
    return true;
  const ResultPipeline& pipeline = comparison_.runs().pipeline();
  if (pipeline.host_upload_pending(0) || pipeline.host_upload_pending(1)) return true;
  // The unrounded values still going into their float textures, a band a frame.
  if (settings.applied().pool != PoolMode::None) return false;
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison_);
  return numbers && ((numbers->difference && unrounded_.difference_texture() == 0) ||
                     (numbers->shown_a && unrounded_.slot_texture(0) == 0));
}

DisplayRange ComparisonMode::drawn_range() const {
  // The range is in the values' own units: a picture of more than 8 bits has them only in the float
  // textures; its 8-bit reduction, drawn until they are complete, keeps [0, 1] (else a sky of
  // counts 20 to 800 would draw its 8-bit copy black for those frames).
  const bool floats_drawn = unrounded_.slot_texture(0) && unrounded_.slot_texture(1) &&
                            comparison_.settings().applied().pool == PoolMode::None;
  return !comparison_.picture().processed_levels || floats_drawn ? display_range_.shown() : DisplayRange{};
}

ImageDrawParams ComparisonMode::draw_params() const {
  const ResultPipeline& pipeline = comparison_.runs().pipeline();
  const auto shows_source = [&](int slot) {
    const SlotSetting& s = comparison_.runs().lane(slot).slot.wanted();
    return (s.method == kOriginalPicture && s.pool == PoolMode::None) || !pipeline.has_result(slot);
  };
  const auto texture_of = [&](int slot) {
    return shows_source(slot) ? pipeline.source_texture() : pipeline.result_texture(slot);
  };
  const auto pooled = [&](int slot) { return !shows_source(slot) && pipeline.result_is_pooled(slot); };
  const int first = view_.blink_swapped ? 1 : 0;
  ImageDrawParams params;
  params.texture_a = texture_of(first);
  params.texture_b = texture_of(1 - first);
  params.pooled_a = pooled(first);
  params.pooled_b = pooled(1 - first);
  params.image_width = pipeline.width();
  params.image_height = pipeline.height();
  params.view = view_.transform;
  params.mode = view_.mode;
  params.split_x = view_.split_fraction * area_.width;
  params.gain = view_.gain;
  params.signed_difference = view_.signed_difference;
  params.false_colour = view_.false_colour;
  params.difference_texture = unrounded_.difference_texture();
  params.difference_swapped = view_.blink_swapped;
  if (!pooled(0) && !pooled(1)) {
    params.float_a = unrounded_.slot_texture(first);
    params.float_b = unrounded_.slot_texture(1 - first);
  }
  params.sampling = view_.sampling;
  params.pixel_grid = view_.pixel_grid;
  params.display = view_.display;
  params.display_range = drawn_range();
  params.viewport_x = area_.x;
  params.viewport_y = surface_.height() - (area_.y + area_.height);
  params.viewport_width = area_.width;
  params.viewport_height = area_.height;
  return params;
}

void ComparisonMode::draw(FrameContext& /*frame*/) {
  if (area_.width <= 0 || area_.height <= 0) return;
  const ResultPipeline& pipeline = comparison_.runs().pipeline();
  if (view_.fit) view_.transform = fit_view(pipeline.width(), pipeline.height(), area_.width, area_.height);
  renderer_->draw(draw_params());
}

int ComparisonMode::finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) {
  comparison_.runs().finish();
  // The summary of the N timed frames, before anything else is drawn.
  RunSummary summary = automated_summary(comparison_, view_, !options_.compare_id.empty() || !options_.compare_file.empty(), options_.frames,
                                         frame.frame_ms.median(), frame.frame_number, frame.gl_timer.stages());
  summary.display_transform = describe(view_.display, display_range_.note());
  const Overwrite overwrite = options_.overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (!options_.screenshot.empty()) {
    std::string why;
    const std::optional<ImageRgba8> result = shown_result(comparison_, 0, why);
    if (!result) {
      std::fprintf(stderr, "gausslab: error: no result to save (%s)\n", why.c_str());
      return 1;
    }
    if (comparison_.picture().levels)  // the picture holds more than 8 bits: say what the file holds
      std::fprintf(stderr,
                   "gausslab: note: the screenshot holds result A as 8-bit RGBA, the display copy of this 16-bit or "
                   "float picture (gausslab-filter writes results in the picture's own type)\n");
    if (options_.screenshot == kStandardOutputName)
      write_standard_output(*result, 4, options_.screenshot_format);
    else
      save_image(options_.screenshot, *result, 4, overwrite);
  }
  if (!options_.screenshot_view.empty()) {
    comparison_.timing().refresh_soon();  // the untimed frames show the final medians and the numbers
    if (options_.screenshot_view == kStandardOutputName)
      write_standard_output(capture_view(), 3, options_.screenshot_format);
    else
      save_image(options_.screenshot_view, capture_view(), 3, overwrite);
  }
  std::printf("%s\n", summary_line(summary).c_str());
  std::fflush(stdout);
  return comparison_.messages().fallbacks().empty() ? 0 : 3;  // it went on, but not with what was asked for
}

}  // namespace gausslab
