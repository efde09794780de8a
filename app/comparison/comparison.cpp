#include "comparison/comparison.hpp"

#include <cstdio>

#include "comparison/image_resample.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/texture.hpp"
#include "viewer/frame_trace.hpp"
#include "viewer/run_report.hpp"
#include "viewer/startup.hpp"

namespace gausslab {

namespace {

// Before any allocation: a side beyond what OpenGL can show would fail only after the resampling
// and the uploads, minutes and gigabytes later. Empty when the size can be shown.
std::string picture_size_problem(int width, int height, const std::string& renderer) {
  const int limit = max_texture_size();
  if (width > limit || height > limit)
    return "a " + std::to_string(width) + " x " + std::to_string(height) + " picture cannot be shown: this " +
           "OpenGL (" + renderer + ") shows at most " + std::to_string(limit) + " pixels on a " +
           "side (GL_MAX_TEXTURE_SIZE); choose a smaller size (--size) or use gausslab-filter, which has no " +
           "such limit";
  if (static_cast<long long>(width) * height > kMaxPixels)
    return "a " + std::to_string(width) + " x " + std::to_string(height) + " picture is larger than the " +
           std::to_string(kMaxPixels) + " pixels gausslab supports";
  return {};
}

bool size_differs(const FilterState& x, const FilterState& y) {
  return x.original_size != y.original_size || (!x.original_size && (x.width != y.width || x.height != y.height));
}

// Reads a watched reference file again; the previous version stays when it cannot be used.
void reload_reference(int slot, ReferenceSlot& reference, const ImageRgba8& picture, ComparisonSettings& settings,
                      StatusMessages& messages) {
  const char* name = slot == 0 ? "A" : "B";
  try {
    ReferenceImage image = load_reference(reference.watcher.path());
    if (const std::string mismatch =
            reference_size_problem(image.path, image.width(), image.height(), picture.width(), picture.height());
        !mismatch.empty()) {
      messages.say(std::string(name) + ": the new version is not used: " + mismatch, true, 10.0);
      return;
    }
    settings.set_reference_names(slot, image.name, reference_label(image));
    reference.image = std::move(image);
    ++reference.number;
    messages.say(std::string(name) + ": reloaded " + reference.image.name);
  } catch (const ImageLoadError& error) {
    messages.say(std::string(name) + ": could not reload (the previous version stays): " + error.what(), true, 10.0);
  }
}

// A slot asked to show a reference file whose size is not the picture's (a new picture or size):
// it shows the original picture instead, and the user is told.
void refuse_mismatched_references(FilterState& asked, const WatchedFiles& files, const ImageRgba8& picture,
                                  StatusMessages& messages) {
  for (int i = 0; i < 2; ++i) {
    int& method = i == 0 ? asked.method_a : asked.method_b;
    if (!is_reference_file(method)) continue;
    const ReferenceImage& image = files.reference[reference_file_slot(method)].image;
    const std::string mismatch =
        reference_size_problem(image.path, image.width(), image.height(), picture.width(), picture.height());
    if (mismatch.empty()) continue;
    messages.say(std::string(i == 0 ? "A" : "B") + " shows the original picture: " + mismatch, true, 10.0);
    method = kOriginalPicture;
  }
}

// What the slots' auto entries chose for the prepared problem, into the choices' labels.
void note_auto_choices(SlotRuns& runs, ComparisonSettings& settings) {
  for (int i = 0; i < 2; ++i) {
    Slot& slot = runs.lane(i).slot;
    const int method = slot.wanted().method;
    // Read once prepared: a GPU method prepares on the slot's worker, which writes the choice.
    if (!slot.shows_method() || !slot.prepared() || !slot.problem().empty()) continue;
    if (!settings.choices().chosen(method).empty()) continue;
    if (const std::optional<AutoChoice> choice = auto_choice_of(*slot.instance(method)))
      settings.set_chosen(method, choice->method_id, choice->why);
  }
}

// A picture of more than 8 bits: the views draw the numbers' values, which each auto slot ran with
// its choice for the float planes; the labels name that choice (the 8-bit one ran only the copy).
// With `settings` null, only whether a label is still behind (busy(): one more frame notes it).
bool note_auto_choices_on_samples(const std::optional<ComparisonNumbers>& numbers, const MethodChoices& choices,
                                  ComparisonSettings* settings) {
  if (!numbers || !numbers->shown_a) return false;
  const SlotSetting* slots[2] = {&numbers->key.a, &numbers->key.b};
  const std::optional<AutoChoice>* ran[2] = {&numbers->auto_a, &numbers->auto_b};
  bool behind = false;
  for (int i = 0; i < 2; ++i) {
    const int method = slots[i]->method;
    if (!*ran[i] || method < 0 || method >= choices.size() || choices.chosen_format(method) == PixelFormat::F32) continue;
    behind = true;
    if (settings)
      settings->set_chosen_on_samples(method, (*ran[i])->method_id,
                                      (*ran[i])->why + "; on the picture's samples as float32 planes", PixelFormat::F32);
  }
  return behind;
}

}  // namespace

Comparison::Comparison(ComparisonStart start)
    : machine_{start.gl, describe(cuda_device_status())},
      messages_(start.print_events),
      runs_(start.best_path, start.history_frames),
      work_(runs_.pipeline().runs_gpu_methods(), start.automated),
      settings_(start.filter, runs_.pipeline(), runs_.lane(0).slot, messages_) {
  picture_.original = std::move(start.original);
  picture_.levels = std::move(start.levels);
  picture_.name = std::move(start.name);
  picture_.path = std::move(start.path);
  if (!rebuild_picture()) throw StartupError(picture_.load_error);
  if (!start.compare_file.empty())
    if (const std::string refused = set_slot_file(1, start.compare_file); !refused.empty())
      throw StartupError("--compare-file: " + refused);
  if (start.watch && !picture_.path.empty()) files_.picture = FileWatcher(picture_.path);
  settings_.apply();
  want_slots();
  runs_.lane(0).slot.prepare(settings_.problem(), runs_.pipeline());
  settings_.update_choices();
}

Comparison::~Comparison() = default;  // work_ stops before runs_ (the GPU work, the slots) goes

void Comparison::show_slots(bool a, bool b) {
  runs_.lane(0).shown = a;
  runs_.lane(1).shown = b;
}

void Comparison::want_slots() {
  const FilterState& applied = settings_.applied();
  for (int i = 0; i < 2; ++i) {
    const int method = i == 0 ? applied.method_a : applied.method_b;
    SlotSetting setting{picture_.number, method, applied.params, applied.pool};
    if (is_reference_file(method)) {  // no sigma or method: a new sigma leaves the file's upload alone
      setting.params = FilterParams{};
      setting.reference = files_.reference[reference_file_slot(method)].number;
    }
    runs_.lane(i).slot.want(setting);
  }
}

std::string Comparison::set_slot_file(int slot, const std::string& path) {
  const char* name = slot == 0 ? "A" : "B";
  std::string refused;
  try {
    ReferenceImage image = load_reference(path);
    refused = reference_size_problem(image.path, image.width(), image.height(), picture_.processed->width(),
                                     picture_.processed->height());
    if (refused.empty()) {
      ReferenceSlot& reference = files_.reference[slot];
      settings_.set_reference_names(slot, image.name, reference_label(image));
      reference.image = std::move(image);
      reference.watcher = FileWatcher(path);
      ++reference.number;
      (slot == 0 ? settings_.requested().method_a : settings_.requested().method_b) = reference_file_choice(slot);
      messages_.say(std::string(name) + ": " + reference_label(reference.image));
      return {};
    }
  } catch (const ImageLoadError& error) {
    refused = std::string("could not open: ") + error.what();
  }
  messages_.say(std::string(name) + " keeps what it showed: " + refused, true, 10.0);
  return refused;
}

bool Comparison::poll_files() {
  bool acted = false;
  const FileWatcher::Clock::time_point now = FileWatcher::Clock::now();
  for (int slot = 0; slot < 2; ++slot) {
    FileWatcher& watcher = files_.reference[slot].watcher;
    if (!watcher.changed(now)) continue;
    reload_reference(slot, files_.reference[slot], *picture_.processed, settings_, messages_);
    watcher.taken();
    acted = true;
  }
  // --watch follows the picture: another file opened meanwhile is the one watched.
  if (files_.picture.watching() && files_.picture.path() != picture_.path && !picture_.path.empty())
    files_.picture = FileWatcher(picture_.path);
  if (files_.picture.changed(now)) {
    const std::uint64_t opened = picture_.opened;
    const int width = picture_.original.width(), height = picture_.original.height();
    open_file(files_.picture.path());
    files_.picture.taken();
    if (picture_.opened != opened) {
      // The same file again: the view keeps its zoom and pan unless the size changed.
      if (picture_.original.width() == width && picture_.original.height() == height) --picture_.opened;
      messages_.say("reloaded " + picture_.path);
    }
    acted = true;
  }
  return acted;
}

bool Comparison::rebuild_picture() {
  const FilterState& asked = settings_.requested();
  const int width = asked.original_size ? picture_.original.width() : asked.width;
  const int height = asked.original_size ? picture_.original.height() : asked.height;
  if (const std::string problem = picture_size_problem(width, height, machine_.gl.renderer); !problem.empty()) {
    picture_.load_error = problem;
    return false;
  }
  ResultPipeline& pipeline = runs_.pipeline();
  try {
    ImageRgba8 picture = resample(picture_.original, width, height);
    auto shared = std::make_shared<const ImageRgba8>(picture);  // the workers' copy
    try {
      pipeline.set_source(picture);
    } catch (const CudaError& error) {
      // The device cannot take the picture (out of memory, a lost context): the CPU path can.
      leave_the_gpu(std::string("the GPU could not take the picture (") + error.what() + ")");
      pipeline.set_source(picture);
    }
    picture_.processed = std::move(shared);
    const bool own_size = width == picture_.original.width() && height == picture_.original.height();
    picture_.processed_levels = own_size ? picture_.levels : nullptr;
    runs_.reserve_sliced_results();
  } catch (const std::exception& error) {
    picture_.load_error = "could not use a " + std::to_string(width) + " x " + std::to_string(height) +
                          " picture: " + error.what();
    if (picture_.processed) {  // put the previous picture back, so the pipeline and the view agree again
      try {
        pipeline.set_source(*picture_.processed);
      } catch (const std::exception&) {
      }
    }
    return false;
  }
  ++picture_.number;
  return true;
}

void Comparison::open_file(const std::string& path) {
  try {
    const LoadedImage file = load_image(path);
    LoadedRgba8 loaded = reduce_to_rgba8(file);  // what the slots show; the levels are what is measured
    ImageRgba8 previous = std::move(picture_.original);
    std::shared_ptr<const PictureLevels> previous_levels = std::move(picture_.levels);
    const std::string previous_name = picture_.name;
    picture_.original = std::move(loaded.image);
    picture_.levels = picture_levels(file);
    picture_.name = path;
    if (!rebuild_picture()) {  // e.g. too large: the old picture stays
      picture_.original = std::move(previous);
      picture_.levels = std::move(previous_levels);
      picture_.name = previous_name;
      return;
    }
    picture_.path = path;
    ++picture_.opened;
    picture_.load_error.clear();
    messages_.say("opened " + path);
  } catch (const ImageLoadError& error) {
    picture_.load_error = std::string("could not open: ") + error.what() + " (the current picture stays)";
    messages_.say(picture_.load_error, true, 10.0);
  }
}

void Comparison::apply(const FrameClocks& clocks) {
  FilterState& asked = settings_.requested();
  const FilterState& applied = settings_.applied();
  refuse_mismatched_references(asked, files_, *picture_.processed, messages_);  // a picture opened since the last frame
  if (asked != applied) {
    if (size_differs(asked, applied) && !rebuild_picture()) {
      asked.original_size = applied.original_size;
      asked.width = applied.width;
      asked.height = applied.height;
    }
    refuse_mismatched_references(asked, files_, *picture_.processed, messages_);  // a new size
    // A new processing mode: the readouts describe one mode, so they start again.
    if (asked.continuous != applied.continuous || asked.repeat != applied.repeat) {
      runs_.lane(0).slot.timer().reset_history();
      runs_.lane(1).slot.timer().reset_history();
      clocks.gl.reset_history();
      clocks.frame_ms.clear();
      timing_.history().clear();
    }
    settings_.apply();
  }
  // A slot's stage history goes when its own setting changes (A's stay when only B changes), the
  // frame times when either does.
  const SlotSetting a_before = runs_.lane(0).slot.wanted(), b_before = runs_.lane(1).slot.wanted();
  FrameTrace& trace = FrameTrace::instance();  // the parts of apply, for slow frames after a step
  trace.mark("apply_filter");
  want_slots();
  trace.mark("apply_want");
  const auto forget_stages_if_changed = [this](SlotLane& lane, const SlotSetting& before) {
    if (lane.slot.wanted() == before) return false;
    lane.slot.timer().reset_history();
    timing_.history().clear_prefix(std::string(lane.name()) + " ");
    return true;
  };
  const bool a_changed = forget_stages_if_changed(runs_.lane(0), a_before);
  const bool b_changed = forget_stages_if_changed(runs_.lane(1), b_before);
  if (a_changed || b_changed) {
    clocks.gl.reset_history();
    clocks.frame_ms.clear();
    timing_.history().clear_prefix("GL ");
    timing_.history().clear_prefix("frame");
    work_.setting_changed();
  }
  // Which methods can run depends on the problem only: a new method in a slot keeps the list (the
  // list asks every registered method, ~1 ms on the H100 machine, inside the frame).
  if (settings_.problem() != settings_.choices().problem()) settings_.update_choices();
  trace.mark("apply_choices");
  runs_.prepare(settings_.problem());
  note_auto_choices(runs_, settings_);
  note_auto_choices_on_samples(current_numbers(*this), settings_.choices(), &settings_);
  for (int i = 0; i < 2; ++i) {
    const Slot& slot = runs_.lane(i).slot;
    if (slot.shows_method() && slot.prepared() && !slot.problem().empty()) {
      const std::string why = slot.problem();
      run_failed(i, std::runtime_error(why));
    }
  }
}

void Comparison::run_failed(int slot, const std::exception& error) {
  // A fault inside a kernel leaves the context broken for every later call: the GPU is left.
  if (dynamic_cast<const CudaError*>(&error) && runs_.pipeline().runs_gpu_methods())
    if (const std::string broken = broken_context_reason(); !broken.empty()) leave_the_gpu(broken);
  if (slot < 0) return;
  // A failure of a method the slot holds no longer (a second result of it in the frame that
  // replaced it) is not one of its replacement.
  const FilterState& applied = settings_.applied();
  if ((slot == 0 ? applied.method_a : applied.method_b) != runs_.lane(slot).slot.wanted().method) return;
  const std::string note = settings_.replace_failed(slot, error.what());
  messages_.fallback(note, note, note);
}

void Comparison::leave_the_gpu(const std::string& why) {
  runs_.leave_the_gpu(why);
  work_.leave_the_gpu();
  settings_.update_choices();
  messages_.fallback(why, why + ": the viewer goes on with the CPU methods", why + "; continuing on the cpu path");
}

void Comparison::show_host_results(GlTimer& gl) {
  // The exact Gaussian once it is computed, and the original picture when it is pooled (unpooled,
  // the original is the source texture itself).
  for (int i = 0; i < 2; ++i) {
    SlotLane& lane = runs_.lane(i);
    Slot& s = lane.slot;
    if (s.up_to_date() || lane.uploading == s.wanted()) continue;
    const PoolMode pool = s.wanted().pool;
    if (s.wanted().method == kExactGaussian) {
      if (std::shared_ptr<const ExactResult> exact = work_.exact().find(exact_key(*this)))
        runs_.show_host_image(i,
                              pool == PoolMode::None ? std::shared_ptr<const ImageRgba8>(exact, &exact->rounded)
                                                     : std::make_shared<const ImageRgba8>(pool_2x2(exact->rounded, pool)),
                              gl);
    } else if (is_reference_file(s.wanted().method)) {
      const ReferenceImage& file = files_.reference[reference_file_slot(s.wanted().method)].image;
      if (file.shown)
        runs_.show_host_image(i, pool == PoolMode::None ? file.shown : std::make_shared<const ImageRgba8>(pool_2x2(*file.shown, pool)), gl);
    } else if (s.wanted().method == kOriginalPicture) {
      if (pool != PoolMode::None)
        runs_.show_host_image(i, std::make_shared<const ImageRgba8>(pool_2x2(*picture_.processed, pool)), gl);
      else
        s.mark_computed();
    }
  }
}

void Comparison::frame(const FrameClocks& clocks) {
  FrameTrace& trace = FrameTrace::instance();
  const auto failed = [this](int slot, const std::exception& error) { run_failed(slot, error); };
  apply(clocks);
  trace.mark("apply_changes");
  const bool ran = runs_.process(settings_.applied(), picture_.processed, settling_, clocks.gl, failed);
  // A failed registration or map falls back to staging: the reasons shown must follow.
  if (ran && runs_.pipeline().path() != settings_.choices().path()) settings_.update_choices();
  trace.mark("process");
  runs_.take_cpu_results(clocks.gl, failed);
  show_host_results(clocks.gl);
  runs_.continue_host_uploads(clocks.gl);
  trace.mark("host_results");
  if (!too_large_to_measure(*this)) {
    const FilterState& applied = settings_.applied();
    work_.request(exact_key(*this), picture_.processed, runs_.lane(0).slot.wanted(), runs_.lane(1).slot.wanted(),
                  applied.method_a == kExactGaussian || applied.method_b == kExactGaussian, picture_.processed_levels,
                  {files_.reference[0].image.levels, files_.reference[1].image.levels});
  }
  trace.mark("background_work");
  timing_.record("A ", runs_.lane(0).slot.timer(), runs_.lane(0).seen_completed);
  timing_.record("B ", runs_.lane(1).slot.timer(), runs_.lane(1).seen_completed);
  timing_.record_gl(clocks.gl, clocks.frame_ms);
}

void Comparison::frame_drawn() {
  runs_.frame_drawn();
  work_.frame_drawn();
}

void Comparison::start_compare_all() { work_.compare_all().start(exact_key(*this), picture_.processed); }

ExactKey exact_key(const Comparison& comparison) {
  return ExactKey{comparison.picture().number, comparison.settings().applied().params};
}

std::optional<ComparisonNumbers> current_numbers(const Comparison& comparison) {
  // A reference file set or reloaded counts from the moment it is taken, though the slots want its
  // new load only from the next apply: until then the numbers of its previous version are not
  // current (they would stand under the new file's name).
  for (int i = 0; i < 2; ++i) {
    const SlotSetting& wanted = comparison.runs().lane(i).slot.wanted();
    if (is_reference_file(wanted.method) &&
        wanted.reference != comparison.reference(reference_file_slot(wanted.method)).number)
      return std::nullopt;
  }
  return comparison.work().numbers(comparison.runs().lane(0).slot.wanted(), comparison.runs().lane(1).slot.wanted());
}

bool too_large_to_measure(const Comparison& comparison) {
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  return static_cast<long long>(pipeline.width()) * pipeline.height() > kMaxMeasuredPixels;
}

std::string too_large_note(const Comparison& comparison) {
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  return "the numbers and the exact Gaussian are worked out for pictures up to 8192 x 8192 (64 Mpixel; they "
         "need 48 bytes a pixel): this one is " + std::to_string(pipeline.width()) + " x " +
         std::to_string(pipeline.height());
}

bool starting(const Comparison& comparison) {
  for (int i = 0; i < 2; ++i) {
    const SlotLane& lane = comparison.runs().lane(i);
    const Slot& s = lane.slot;
    if (lane.shown && s.shows_method() && s.problem().empty() && !s.up_to_date()) return true;
  }
  return false;
}

bool busy(const Comparison& comparison) {
  if (starting(comparison)) return true;  // a shown method's first result for its setting
  const ExactKey key = exact_key(comparison);
  for (int i = 0; i < 2; ++i) {
    const SlotLane& lane = comparison.runs().lane(i);
    const Slot& s = lane.slot;
    if (!lane.shown || !s.problem().empty()) continue;
    const bool exact_failed = !comparison.work().exact().error().empty();
    if (s.wanted().method == kExactGaussian && !s.up_to_date() && !exact_failed) return true;
  }
  if (comparison.runs().cpu_runner().busy(0) || comparison.runs().cpu_runner().busy(1)) return true;
  if (note_auto_choices_on_samples(current_numbers(comparison), comparison.settings().choices(), nullptr)) return true;
  const FilterState& applied = comparison.settings().applied();
  return comparison.work().busy(key, applied.method_a == kExactGaussian || applied.method_b == kExactGaussian,
                                !too_large_to_measure(comparison));
}

std::string progress(const Comparison& comparison) {
  const SlotRuns& runs = comparison.runs();
  const MethodChoices& choices = comparison.settings().choices();
  std::string text;
  const auto add = [&text](const std::string& part) {
    if (!part.empty()) text += (text.empty() ? "" : "; ") + part;
  };
  for (int i = 0; i < 2; ++i)
    if (runs.cpu_runner().busy(i))
      add(choices.id(runs.lane(i).slot.wanted().method) + " running (" +
          std::to_string(static_cast<int>(runs.cpu_runner().running_seconds(i))) + " s)");
  for (int i = 0; i < 2; ++i)
    if (runs.lane(i).shown && runs.lane(i).slot.preparing())
      add(std::string(runs.lane(i).name()) + " preparing " + choices.id(runs.lane(i).slot.wanted().method));
  for (int i = 0; i < 2; ++i)
    if (const std::string sliced = runs.lane(i).slicer.progress(); !sliced.empty())
      add(std::string(runs.lane(i).name()) + " " + sliced);
  add(comparison.work().progress(exact_key(comparison)));
  return text;
}

}  // namespace gausslab
