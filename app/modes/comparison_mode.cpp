#include "modes/comparison_mode.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "panels/mode_shell.hpp"
#include "viewer/frame_trace.hpp"
#include "gausslab/render/texture.hpp"
#include "comparison/image_resample.hpp"
#include "comparison/save_folder.hpp"
#include "comparison/slot_preparer.hpp"

namespace gausslab {

namespace {

double sum_of_method_stages(const std::vector<StageTiming>& stages) {
  double total = 0;
  for (const StageTiming& stage : stages)
    if (!is_pipeline_stage(stage.name)) total += stage.median_ms;
  return total;
}

bool is_gpu_choice(int choice) {
  return choice >= 0 && method_registry().at(static_cast<std::size_t>(choice)).info.backend == Backend::Cuda;
}

}  // namespace

ComparisonMode::ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface)
    : options_(options),
      surface_(surface),
      pipeline_(std::make_unique<ResultPipeline>(options.best_path)),
      renderer_(std::make_unique<ImageRenderer>()),
      slot_a_(history_frames(options)),
      slot_b_(history_frames(options)),
      actions_([this](const Action& action) { return offer(action); }, options.events),
      history_(300) {
  const bool automated = options.frames > 0 || !options.script.empty();
  if (FrameTrace::instance().enabled())
    pipeline_->set_trace_marks([](const char* step) { FrameTrace::instance().mark(step); });
  numbers_ = std::make_unique<NumbersWorker>(pipeline_->runs_gpu_methods());
  compare_all_ = std::make_unique<CompareAll>(pipeline_->runs_gpu_methods(), exact_);
  filter_.method_a = plan.method_a;
  filter_.method_b = plan.method_b;
  filter_.params = options.params;
  filter_.original_size = !options.resize;
  filter_.width = options.resize ? options.size_width : plan.original.width();
  filter_.height = options.resize ? options.size_height : plan.original.height();
  filter_.continuous = automated;  // timed and scripted runs process every frame
  view_.mode = options.display;
  original_ = std::move(plan.original);
  image_name_ = plan.image_name;
  image_path_ = options.image_path;
  if (!rebuild_picture()) throw StartupError(load_error_);
  applied_ = filter_;
  want_slots();
  slot_a_.prepare(problem(), *pipeline_);
  update_method_choices();
  path_seen_ = pipeline_->path();
  cuda_description_ = describe(cuda_device_status());
  // Automated runs save where they are told (tests must not write into a user's chosen folder).
  save_folder_ = !options.save_folder.empty() ? options.save_folder : automated ? std::string() : remembered_save_folder();
  exact_wanted_now_ = automated;
}

ComparisonMode::~ComparisonMode() {
  try {
    shut_down();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
  }
  compare_all_.reset();
  numbers_.reset();
  wait_sliced_starts();
  for (std::unique_ptr<SlicedRun>& run : sliced_) run.reset();
  slot_a_.release_instances();
  slot_b_.release_instances();
}

void ComparisonMode::shut_down() {
  // Queued CUDA work may still use the methods' buffers: finish it before they are freed.
  if (pipeline_) pipeline_->synchronize();
}

std::string ComparisonMode::slot_id(int choice) const {
  if (choice == kOriginalPicture) return "original";
  if (choice == kExactGaussian) return "exact";
  return choice >= 0 && choice < static_cast<int>(choices_.size()) ? choices_[static_cast<std::size_t>(choice)].id : "?";
}

std::string ComparisonMode::slot_label(int choice) const {
  if (choice == kOriginalPicture) return "original picture";
  if (choice == kExactGaussian) return "exact Gaussian";
  return choice >= 0 && choice < static_cast<int>(choices_.size()) ? choices_[static_cast<std::size_t>(choice)].label : "?";
}

std::string ComparisonMode::window_title() const {
  char sigma[32];
  std::snprintf(sigma, sizeof sigma, "%.4g", applied_.params.sigma);
  return "gausslab \u2013 " + image_name_ + " \u2013 A: " + slot_id(applied_.method_a) + " vs B: " +
         slot_id(applied_.method_b) + " \u2013 \u03c3 " + sigma +
         (applied_.pool == PoolMode::None ? "" : std::string(" \u2013 pooled ") + to_string(applied_.pool));
}

FilterProblem ComparisonMode::problem() const {
  return FilterProblem{pipeline_->width(), pipeline_->height(), PixelFormat::Rgba8, applied_.params};
}

FilterProblem ComparisonMode::requested_problem() const {
  return FilterProblem{pipeline_->width(), pipeline_->height(), PixelFormat::Rgba8, filter_.params};
}

void ComparisonMode::say(const std::string& text, bool error, double seconds) {
  if (options_.events) {
    std::printf("gausslab-event: %s %s\n", error ? "error" : "message", text.c_str());
    std::fflush(stdout);
  }
  status_ = TimedMessage{text, error,
                         std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000))};
}

void ComparisonMode::want_slots() {
  slot_a_.want(SlotSetting{picture_number_, applied_.method_a, applied_.params, applied_.pool});
  slot_b_.want(SlotSetting{picture_number_, applied_.method_b, applied_.params, applied_.pool});
}

bool ComparisonMode::slot_shown(int index) const {
  const bool swapped = view_.blink_swapped;
  switch (view_.mode) {
    case CompareMode::A: return index == (swapped ? 1 : 0);
    case CompareMode::B: return index == (swapped ? 0 : 1);
    default: return true;
  }
}

void ComparisonMode::update_method_choices() {
  choices_problem_ = problem();
  choices_.clear();
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const MethodInfo& info = registry[i].info;
    MethodChoice choice{info.id, info.label, info.summary, info.accuracy, info.backend == Backend::Cuda, {}};
    if (choice.gpu && !pipeline_->runs_gpu_methods())
      choice.blocked = pipeline_->path_reason();
    else
      choice.blocked = slot_a_.instance(static_cast<int>(i))->unsupported_reason(problem());
    choices_.push_back(std::move(choice));
  }
}

bool ComparisonMode::check_picture_size(int width, int height) {
  // Before any allocation: a side beyond what OpenGL can show would fail only after the resampling
  // and the uploads, minutes and gigabytes later.
  const int limit = max_texture_size();
  if (width > limit || height > limit) {
    load_error_ = "a " + std::to_string(width) + " x " + std::to_string(height) + " picture cannot be shown: this " +
                  "OpenGL (" + surface_.info().renderer + ") shows at most " + std::to_string(limit) + " pixels on a " +
                  "side (GL_MAX_TEXTURE_SIZE); choose a smaller size (--size) or use gausslab-filter, which has no " +
                  "such limit";
    return false;
  }
  if (static_cast<long long>(width) * height > kMaxPixels) {
    load_error_ = "a " + std::to_string(width) + " x " + std::to_string(height) + " picture is larger than the " +
                  std::to_string(kMaxPixels) + " pixels gausslab supports";
    return false;
  }
  return true;
}

bool ComparisonMode::rebuild_picture() {
  const int width = filter_.original_size ? original_.width() : filter_.width;
  const int height = filter_.original_size ? original_.height() : filter_.height;
  if (!check_picture_size(width, height)) return false;
  try {
    ImageRgba8 picture = resample(original_, width, height);
    auto shared = std::make_shared<const ImageRgba8>(picture);  // the workers' copy
    try {
      pipeline_->set_source(picture);
    } catch (const CudaError& error) {
      // The device cannot take the picture (out of memory, a lost context): the CPU path can.
      leave_the_gpu(std::string("the GPU could not take the picture (") + error.what() + ")");
      pipeline_->set_source(picture);
    }
    picture_ = std::move(shared);
    reserve_sliced_results();
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
  return true;
}

void ComparisonMode::reserve_sliced_results() {
  if (!pipeline_->runs_gpu_methods()) return;
  wait_sliced_starts();  // a start on a worker may be using a run; set_source has finished every tile
  for (std::unique_ptr<SlicedRun>& run : sliced_) {
    if (!run) run = std::make_unique<SlicedRun>();
    try {
      run->reserve_result(pipeline_->width(), pipeline_->height());
    } catch (const CudaOutOfMemory&) {
      // The first sliced run's start allocates it, or says why it cannot.
    }
  }
}

void ComparisonMode::open_file(const std::string& path) {
  try {
    LoadedImage loaded = load_image(path);
    ImageRgba8 previous = std::move(original_);
    const std::string previous_name = image_name_;
    original_ = std::move(loaded.image);
    image_name_ = path;
    if (!rebuild_picture()) {  // e.g. too large: the old picture stays
      original_ = std::move(previous);
      image_name_ = previous_name;
      return;
    }
    image_path_ = path;
    load_error_.clear();
    say("opened " + path);
    view_.fit = true;  // the slots follow the new picture in apply_changes
  } catch (const ImageLoadError& error) {
    load_error_ = std::string("could not open: ") + error.what() + " (the current picture stays)";
    say(load_error_, true, 10.0);
  }
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
    // A new processing mode: the readouts describe one mode, so they start again.
    if (filter_.continuous != applied_.continuous || filter_.repeat != applied_.repeat) {
      slot_a_.timer().reset_history();
      slot_b_.timer().reset_history();
      frame.gl_timer.reset_history();
      frame.frame_ms.clear();
      history_.clear();
    }
    applied_ = filter_;
  }
  // A slot's stage history goes when its own setting changes (A's stay when only B changes), the
  // frame times when either does.
  const SlotSetting a_before = slot_a_.wanted(), b_before = slot_b_.wanted();
  FrameTrace& trace = FrameTrace::instance();  // the parts of apply_changes, for slow frames after a step
  trace.mark("apply_filter");
  want_slots();
  trace.mark("apply_want");
  const bool a_changed = slot_a_.wanted() != a_before, b_changed = slot_b_.wanted() != b_before;
  if (a_changed) {
    slot_a_.timer().reset_history();
    history_.clear_prefix("A ");
  }
  if (b_changed) {
    slot_b_.timer().reset_history();
    history_.clear_prefix("B ");
  }
  if (a_changed || b_changed) {
    frame.gl_timer.reset_history();
    frame.frame_ms.clear();
    history_.clear_prefix("GL ");
    history_.clear_prefix("frame");
    setting_changed_at_ = std::chrono::steady_clock::now();
  }
  // Which methods can run depends on the problem only: a new method in a slot keeps the list (the
  // list asks every registered method, ~1 ms on the H100 machine, inside the frame).
  if (problem() != choices_problem_) update_method_choices();
  trace.mark("apply_choices");
  // Every frame: a GPU method's prepare runs on the slot's worker and is taken in when it is done.
  slot_a_.prepare(problem(), *pipeline_);
  trace.mark("apply_prepare_a");
  // B's method is prepared when a view shows it (its buffers, plans or spectra may be large).
  if (slot_shown(1)) slot_b_.prepare(problem(), *pipeline_);
  trace.mark("apply_prepare_b");
  for (int i = 0; i < 2; ++i)
    if (slot(i).shows_method() && slot(i).prepared() && !slot(i).problem().empty()) recover(i, slot(i).problem());
}

void ComparisonMode::leave_the_gpu(const std::string& why) {
  slot_a_.wait_preparing();  // no prepare may still use the device
  slot_b_.wait_preparing();
  wait_sliced_starts();
  pipeline_->fall_back_to_cpu(why);
  path_seen_ = pipeline_->path();
  numbers_ = std::make_unique<NumbersWorker>(false);
  numbers_requested_.reset();
  compare_all_ = std::make_unique<CompareAll>(false, exact_);
  for (int i = 0; i < 2; ++i) {
    drop_sliced_run(i);
    sliced_[i].reset();
  }
  spans_.clear();
  sliced_totals_.clear();
  slot_a_.release_instances();
  slot_b_.release_instances();
  update_method_choices();
  fallback_note_ += (fallback_note_.empty() ? "" : "; ") + why;
  say(why + ": the viewer goes on with the CPU methods", true, 20.0);
  std::fprintf(stderr, "gausslab: %s; continuing on the cpu path\n", why.c_str());
}

void ComparisonMode::recover(int index, const std::string& why) {
  int& choice = index == 0 ? filter_.method_a : filter_.method_b;
  const std::string failed = slot_id(choice);
  int replacement = kOriginalPicture;
  if (index == 0) {
    replacement = -100;
    for (std::size_t i = 0; i < choices_.size() && replacement == -100; ++i)
      if (choices_[i].id == "cpu_openmp" && choices_[i].blocked.empty()) replacement = static_cast<int>(i);
    for (std::size_t i = 0; i < choices_.size() && replacement == -100; ++i)
      if (!choices_[i].gpu && choices_[i].blocked.empty() && static_cast<int>(i) != choice) replacement = static_cast<int>(i);
    if (replacement == -100) replacement = kOriginalPicture;
  }
  const std::string note = std::string(index == 0 ? "A" : "B") + ": " + failed + " failed (" + why + "); it shows " +
                           slot_label(replacement) + " instead";
  choice = replacement;
  applied_.method_a = filter_.method_a;
  applied_.method_b = filter_.method_b;
  fallback_note_ += (fallback_note_.empty() ? "" : "; ") + note;
  say(note, true, 20.0);
  std::fprintf(stderr, "gausslab: %s\n", note.c_str());
}

void ComparisonMode::process(FrameContext& frame) {
  // GPU methods run in the frame, through the pipeline, or in tiles over several frames when they
  // are slow (comparison_slicing.cpp); CPU methods on the worker.
  std::array<ResultPipeline::Job, ResultPipeline::kSlots> jobs{};
  std::array<bool, ResultPipeline::kSlots> gpu_slots{};
  // While a prepare worker runs (cuFFT plans, allocations and frees that wait for the whole
  // device), a CUDA call from the frame could wait with it: the GPU slots keep their last results
  // for those frames instead.
  const bool gpu_paused = slot_a_.worker_running() || slot_b_.worker_running() || sliced_start_running();
  for (int i = 0; i < 2; ++i) {
    Slot& s = slot(i);
    // A setting change drops the slot's sliced run and its unfinished totals (drop_if_changed has
    // already made it inactive, so drop_sliced_run would keep them).
    if (schedule_[i].drop_if_changed(s.wanted())) sliced_totals_.erase(schedule_[i].run());
    if (!slot_shown(i) || !s.needs_run(applied_.continuous && !settling_)) continue;
    if (is_gpu_choice(s.wanted().method)) {
      gpu_slots[static_cast<std::size_t>(i)] = !gpu_paused;
    } else if (!cpu_runner_.busy(i) || !s.submitted_current()) {
      cpu_runner_.submit(i, s.wanted(), picture_, applied_.repeat);
      s.mark_submitted();
    }
  }
  // A GPU failure: a fault inside a kernel leaves the context broken for every later call (the GPU
  // is left); otherwise the slot goes on with a method that can run.
  const auto gpu_failed = [&](int i, const std::exception& error) {
    drop_sliced_run(i);
    if (dynamic_cast<const CudaError*>(&error) && pipeline_->runs_gpu_methods())
      if (const std::string broken = broken_context_reason(); !broken.empty()) leave_the_gpu(broken);
    recover(i, error.what());
  };
  bool any_whole = false;
  // The slots slicing in this frame share one budget of GPU time (comparison_slicing.cpp), and
  // their tiles make way for the whole runs of the frame when together they would take too long.
  int slicing = 0;
  for (int i = 0; i < 2; ++i) slicing += gpu_slots[static_cast<std::size_t>(i)] && slices(i);
  double whole_ms = 0;  // weighed only in a frame that slices
  if (slicing > 0 && applied_.pool == PoolMode::None)
    for (int i = 0; i < 2; ++i)
      if (gpu_slots[static_cast<std::size_t>(i)] && !slices(i)) whole_ms += whole_run_ms(i);
  const double slice_budget = slice_budget_ms(slicing);
  for (int i = 0; i < 2; ++i) {
    if (!gpu_slots[static_cast<std::size_t>(i)]) continue;
    try {
      const bool sliced = run_sliced(i, frame, slice_budget, whole_ms);
      FrameTrace::instance().mark(i == 0 ? "sliced_a" : "sliced_b");
      if (sliced) continue;
    } catch (const std::exception& error) {
      gpu_failed(i, error);
      continue;
    }
    Slot& s = slot(i);
    jobs[static_cast<std::size_t>(i)] = ResultPipeline::Job{s.instance(s.wanted().method), &s.timer(),
                                                            applied_.pool == PoolMode::None ? tag_whole_run(i) : 0};
    any_whole = true;
  }
  if (any_whole && pipeline_->runs_gpu_methods()) {
    try {
      // Repeat × N: the whole pass N times (each a sample of the stage medians).
      for (int r = 0; r < applied_.repeat; ++r) {
        for (int i = 0; i < 2; ++i)
          if (jobs[static_cast<std::size_t>(i)].method) slot(i).timer().begin_frame();
        if (applied_.pool == PoolMode::None)
          pipeline_->process(jobs, &frame.gl_timer);
        else
          pipeline_->process_pooled(jobs, applied_.pool, &frame.gl_timer);
        FrameTrace::instance().mark("pipeline");
        for (int i = 0; i < 2; ++i)
          if (jobs[static_cast<std::size_t>(i)].method) slot(i).timer().end_frame();
      }
      for (int i = 0; i < 2; ++i)
        if (jobs[static_cast<std::size_t>(i)].method) slot(i).mark_computed();
    } catch (const std::exception& error) {
      for (int i = 0; i < 2; ++i)
        if (jobs[static_cast<std::size_t>(i)].method) slot(i).timer().end_frame();
      for (int i = 0; i < 2; ++i)
        if (jobs[static_cast<std::size_t>(i)].method) gpu_failed(i, error);
    }
  }
  FrameTrace::instance().mark("process_rest");
  if (gpu_paused) return;  // event queries too: read in a later frame
  try {
    collect_gpu_times();
  } catch (const CudaError& error) {
    if (const std::string broken = broken_context_reason(); !broken.empty()) leave_the_gpu(broken);
  }
  slot_a_.timer().poll();
  slot_b_.timer().poll();
  submit_sliced_starts();
  // A failed registration or map falls back to staging: the reasons shown must follow.
  if (pipeline_->path() != path_seen_) {
    path_seen_ = pipeline_->path();
    update_method_choices();
  }
}

void ComparisonMode::take_cpu_results(FrameContext& frame) {
  for (CpuRunResult& result : cpu_runner_.take_results()) {
    Slot& s = slot(result.slot);
    if (result.setting != s.wanted()) continue;  // an older setting: of no use
    if (!result.error.empty()) {
      recover(result.slot, result.error);
      continue;
    }
    for (double ms : result.run_ms) {
      s.timer().begin_frame();
      s.timer().record_host("filter (cpu)", ms);
      s.timer().end_frame();
    }
    show_host_image(result.slot, std::make_shared<const ImageRgba8>(std::move(result.image)), frame);
  }
}

void ComparisonMode::show_host_image(int index, std::shared_ptr<const ImageRgba8> image, FrameContext& frame) {
  pipeline_->show_host_result(index, std::move(image), &frame.gl_timer);
  uploading_[index] = slot(index).wanted();  // computed once in (continue_host_uploads, this frame on)
}

void ComparisonMode::continue_host_uploads(FrameContext& frame) {
  if (uploading_[0] || uploading_[1]) {
    const auto start = std::chrono::steady_clock::now();
    pipeline_->continue_host_uploads(&frame.gl_timer);
    if (FrameTrace::instance().enabled())
      FrameTrace::instance().note(
          "host upload band: " +
          std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()) +
          " ms" + (pipeline_->host_upload_pending(0) || pipeline_->host_upload_pending(1) ? "" : " (the last)"));
  }
  for (int i = 0; i < 2; ++i) {
    if (!uploading_[i] || pipeline_->host_upload_pending(i)) continue;
    // The slot counts as computed once its texture holds the result (a save reads the texture).
    if (slot(i).wanted() == *uploading_[i]) slot(i).mark_computed();
    uploading_[i].reset();
  }
}

void ComparisonMode::show_exact_results(FrameContext& frame) {
  // The exact Gaussian once it is computed, and the original picture when it is pooled (unpooled,
  // the original is the source texture itself).
  for (int i = 0; i < 2; ++i) {
    Slot& s = slot(i);
    if (s.up_to_date() || uploading_[i] == s.wanted()) continue;
    const PoolMode pool = s.wanted().pool;
    if (s.wanted().method == kExactGaussian) {
      if (std::shared_ptr<const ExactResult> exact = exact_.find(exact_key()))
        show_host_image(i,
                        pool == PoolMode::None ? std::shared_ptr<const ImageRgba8>(exact, &exact->rounded)
                                               : std::make_shared<const ImageRgba8>(pool_2x2(exact->rounded, pool)),
                        frame);
    } else if (s.wanted().method == kOriginalPicture) {
      if (pool != PoolMode::None)
        show_host_image(i, std::make_shared<const ImageRgba8>(pool_2x2(*picture_, pool)), frame);
      else
        s.mark_computed();
    }
  }
}

void ComparisonMode::request_background_work() {
  if (too_large_to_measure()) return;
  const bool exact_in_slot = applied_.method_a == kExactGaussian || applied_.method_b == kExactGaussian;
  const bool stood = std::chrono::steady_clock::now() - setting_changed_at_ > std::chrono::milliseconds(400);
  if (exact_in_slot || exact_wanted_now_ || stood) exact_.request(exact_key(), picture_);
  std::shared_ptr<const ExactResult> exact = exact_.find(exact_key());
  const NumbersKey key{slot_a_.wanted().unpooled(), slot_b_.wanted().unpooled(), exact != nullptr};
  if (numbers_requested_ != key) {
    numbers_->submit(key, picture_, exact);
    numbers_requested_ = key;
  }
}

bool ComparisonMode::too_large_to_measure() const {
  return static_cast<long long>(pipeline_->width()) * pipeline_->height() > kMaxMeasuredPixels;
}

std::string ComparisonMode::too_large_note() const {
  return "the numbers and the exact Gaussian are worked out for pictures up to 8192 x 8192 (64 Mpixel; they "
         "need 48 bytes a pixel): this one is " + std::to_string(pipeline_->width()) + " x " +
         std::to_string(pipeline_->height());
}

std::optional<ComparisonNumbers> ComparisonMode::current_numbers() const {
  std::optional<ComparisonNumbers> numbers = numbers_->latest();
  if (!numbers || numbers->key.a != slot_a_.wanted().unpooled() || numbers->key.b != slot_b_.wanted().unpooled())
    return std::nullopt;
  return numbers;
}

void ComparisonMode::record_timing_history(FrameContext& frame) {
  const auto add = [&](int index, const char* prefix, int completed, const std::vector<StageTiming>& stages) {
    if (completed == seen_completed_[index]) return;
    seen_completed_[index] = completed;
    for (const StageTiming& stage : stages) history_.add(prefix + stage.name, stage.last_ms);
  };
  add(0, "A ", slot_a_.timer().completed_frames(), slot_a_.timer().stages());
  add(1, "B ", slot_b_.timer().completed_frames(), slot_b_.timer().stages());
  add(2, "GL ", frame.gl_timer.completed_frames(), frame.gl_timer.stages());
}

bool ComparisonMode::starting() const {
  for (int i = 0; i < 2; ++i) {
    const Slot& s = slot(i);
    if (slot_shown(i) && s.shows_method() && s.problem().empty() && !s.up_to_date()) return true;
  }
  return false;
}

bool ComparisonMode::busy() const {
  if (starting()) return true;  // a shown method's first result for its setting
  for (int i = 0; i < 2; ++i) {
    const Slot& s = slot(i);
    if (!slot_shown(i) || !s.problem().empty()) continue;
    if (s.wanted().method == kExactGaussian && !s.up_to_date() && exact_.error().empty()) return true;
  }
  if (cpu_runner_.busy(0) || cpu_runner_.busy(1)) return true;
  if (saves_.busy()) return true;
  if (exact_.busy() || numbers_->busy() || compare_all_->busy()) return true;
  if (too_large_to_measure()) return false;
  // The exact Gaussian wanted but not there yet, or there but not yet in the numbers.
  const bool has_exact = exact_.find(exact_key()) != nullptr;
  const bool exact_wanted = exact_wanted_now_ || applied_.method_a == kExactGaussian || applied_.method_b == kExactGaussian;
  if (exact_wanted && !has_exact && exact_.error().empty()) return true;
  if (!numbers_requested_ || numbers_requested_->with_exact != has_exact) return true;
  std::optional<ComparisonNumbers> numbers = numbers_->latest();
  return !numbers || numbers_requested_ != numbers->key;
}

std::string ComparisonMode::progress() const {
  std::string text;
  for (int i = 0; i < 2; ++i)
    if (cpu_runner_.busy(i))
      text += std::string(text.empty() ? "" : "; ") + slot_id(slot(i).wanted().method) + " running (" +
              std::to_string(static_cast<int>(cpu_runner_.running_seconds(i))) + " s)";
  for (int i = 0; i < 2; ++i)
    if (slot_shown(i) && slot(i).preparing())
      text += std::string(text.empty() ? "" : "; ") + (i == 0 ? "A" : "B") + " preparing " +
              slot_id(slot(i).wanted().method);
  for (int i = 0; i < 2; ++i)
    if (const std::string sliced = sliced_progress(i); !sliced.empty())
      text += std::string(text.empty() ? "" : "; ") + (i == 0 ? "A " : "B ") + sliced;
  if (std::optional<double> p = exact_.progress(exact_key()))
    text += std::string(text.empty() ? "" : "; ") + "exact Gaussian " + std::to_string(static_cast<int>(*p * 100)) + " %";
  if (const std::string activity = numbers_->activity(); !activity.empty())
    text += std::string(text.empty() ? "" : "; ") + "numbers: " + activity;
  return text;
}

void ComparisonMode::settle() { settling_ = true; }

void ComparisonMode::update(FrameContext& frame) {
  cpu_runner_.frame_drawn();
  numbers_->frame_drawn();
  for (const std::string& message : saves_.take_messages()) say(message, message.rfind("could not", 0) == 0);
  if (mouse_override_) ImGui::GetIO().MousePos = ImVec2(static_cast<float>(mouse_override_->x), static_cast<float>(mouse_override_->y));
  FrameTrace& trace = FrameTrace::instance();
  layout(frame);
  trace.mark("layout");
  if (frame.live) {
    actions_.dispatch(frame.input, [&](const Action& action) { perform(action, frame); });
    handle_view_mouse(view_, drag_, area_, view_.panels_hidden ? -1.0f : ImGui::GetIO().DisplaySize.x - view_.panel_width);
  }
  trace.mark("actions");
  if (!view_.panels_hidden) {
    menu_bar(actions_);
    trace.mark("menu_bar");
    side_panel(frame);
  }
  trace.mark("side_panel");
  if (frame.live) {
    apply_changes(frame);
    trace.mark("apply_changes");
    process(frame);
    trace.mark("process");
    take_cpu_results(frame);
    show_exact_results(frame);
    continue_host_uploads(frame);
    trace.mark("host_results");
    for (int i = 0; i < 2; ++i)
      if (pending_save_[i] && (slot(i).up_to_date() || !slot(i).problem().empty())) save_slot_result(i);
    request_background_work();
    trace.mark("background_work");
    record_timing_history(frame);
    if (frame.frame_ms.size() > 0) history_.add("frame", frame.frame_ms.latest());
  }
  {
    if (std::chrono::steady_clock::now() - last_overlay_refresh_ > std::chrono::milliseconds(250)) {
      overlay_timings_.a = slot_a_.timer().stages();
      overlay_timings_.b = slot_shown(1) ? slot_b_.timer().stages() : std::vector<StageTiming>();
      overlay_timings_.gl = frame.gl_timer.stages();
      overlay_timings_.frame_ms = frame.frame_ms.median();
      overlay_timings_.method_ms = sum_of_method_stages(overlay_timings_.a);
      last_overlay_refresh_ = std::chrono::steady_clock::now();
    }
  }
  if (!view_.panels_hidden && !view_.overlay_hidden) overlay(frame);
  picture_labels();
  difference_legend();
  inspector();
  help_window(actions_);
  compare_all_window(frame);
  folder_window();
  trace.mark("windows");
  if (pending_save_view_) {
    frame.capture_requested = true;
    pending_save_view_ = false;
  }
}

ImageDrawParams ComparisonMode::draw_params() const {
  ImageDrawParams params;
  const auto texture_of = [&](int index) {
    const int choice = slot(index).wanted().method;
    if ((choice == kOriginalPicture && slot(index).wanted().pool == PoolMode::None) || !pipeline_->has_result(index))
      return pipeline_->source_texture();
    return pipeline_->result_texture(index);
  };
  const auto pooled = [&](int index) {
    const SlotSetting& s = slot(index).wanted();
    return !(s.method == kOriginalPicture && s.pool == PoolMode::None) && pipeline_->has_result(index) &&
           pipeline_->result_is_pooled(index);
  };
  const int first = view_.blink_swapped ? 1 : 0;
  params.texture_a = texture_of(first);
  params.texture_b = texture_of(1 - first);
  params.pooled_a = pooled(first);
  params.pooled_b = pooled(1 - first);
  params.image_width = pipeline_->width();
  params.image_height = pipeline_->height();
  params.view = view_.transform;
  params.mode = view_.mode;
  params.split_x = view_.split_fraction * area_.width;
  params.gain = view_.gain;
  params.signed_difference = view_.signed_difference;
  params.false_colour = view_.false_colour;
  params.sampling = view_.sampling;
  params.viewport_x = area_.x;
  params.viewport_y = surface_.height() - (area_.y + area_.height);
  params.viewport_width = area_.width;
  params.viewport_height = area_.height;
  return params;
}

void ComparisonMode::draw(FrameContext& /*frame*/) {
  if (area_.width <= 0 || area_.height <= 0) return;
  if (view_.fit) view_.transform = fit_view(pipeline_->width(), pipeline_->height(), area_.width, area_.height);
  renderer_->draw(draw_params());
}

}  // namespace gausslab
