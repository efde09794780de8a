// What the comparison writes: saved results and views with their JSON sidecars (never replacing a
// file), the compare-all CSV, and the automated run's summary and screenshots.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "modes/comparison_mode.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/render/difference_view.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "comparison/save_folder.hpp"

#ifndef GAUSSLAB_VERSION
#define GAUSSLAB_VERSION "unknown"
#endif

namespace gausslab {

namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "\"inf\"" : "null";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string json_figures(const DifferenceFigures& f) {
  return "{\"max_abs\": " + json_number(f.max_abs) + ", \"mean_abs\": " + json_number(f.mean_abs) +
         ", \"rms\": " + json_number(f.rms) + ", \"psnr_db\": " + json_number(f.psnr_db) + ", \"max_at\": [" +
         std::to_string(f.max_x) + ", " + std::to_string(f.max_y) + ", " + std::to_string(f.max_channel) + "]}";
}

std::string json_stats(const std::optional<DifferenceStats>& stats) {
  if (!stats) return "null";
  return "{\"unrounded\": " + json_figures(stats->unrounded) + ", \"rounded_8bit\": " + json_figures(stats->rounded) +
         ", \"samples\": " + std::to_string(stats->samples) + "}";
}

std::string json_stages(const std::vector<StageTiming>& stages) {
  std::string out = "{";
  for (const StageTiming& stage : stages)
    out += std::string(out.size() > 1 ? ", " : "") + json_string(stage.name) + ": " + json_number(stage.median_ms);
  return out + "}";
}

}  // namespace

std::string ComparisonMode::sidecar_json(const std::string& what, int width, int height) const {
  const std::optional<ComparisonNumbers> numbers = current_numbers();
  const FilterParams& p = applied_.params;
  std::string json = "{\n";
  json += "  \"gausslab_version\": " + json_string(GAUSSLAB_VERSION) + ",\n";
  json += "  \"what\": " + json_string(what) + ",\n";
  json += "  \"source\": " + json_string(image_name_) + ",\n";
  json += "  \"method_a\": " + json_string(slot_id(applied_.method_a)) + ",\n";
  json += "  \"method_b\": " + json_string(slot_id(applied_.method_b)) + ",\n";
  json += "  \"view\": " + json_string(to_string(view_.mode)) + ",\n";
  json += "  \"sigma\": " + json_number(p.sigma) + ",\n";
  json += "  \"truncate\": " + json_number(p.truncate) + ",\n";
  json += "  \"radius\": " + std::to_string(p.radius()) + ",\n";
  json += "  \"border\": " + json_string(to_string(p.border)) + ",\n";
  json += "  \"pooling\": " + json_string(to_string(applied_.pool)) + ",\n";
  json += "  \"width\": " + std::to_string(width) + ",\n";
  json += "  \"height\": " + std::to_string(height) + ",\n";
  json += "  \"processed_size\": [" + std::to_string(pipeline_->width()) + ", " + std::to_string(pipeline_->height()) + "],\n";
  json += "  \"stage_median_ms\": {\"a\": " + json_stages(slot_a_.timer().stages()) +
          ", \"b\": " + json_stages(slot_b_.timer().stages()) + ", \"gl\": " + json_stages(overlay_timings_.gl) + "},\n";
  json += "  \"errors_in_8bit_levels\": {\"a_vs_b\": " + json_stats(numbers ? numbers->a_vs_b : std::nullopt) +
          ", \"a_vs_exact\": " + json_stats(numbers ? numbers->a_vs_exact : std::nullopt) +
          ", \"b_vs_exact\": " + json_stats(numbers ? numbers->b_vs_exact : std::nullopt) + "},\n";
  json += "  \"output_path\": " + json_string(to_string(pipeline_->path())) + ",\n";
  json += "  \"gpu\": " + json_string(cuda_description_) + ",\n";
  json += "  \"gl_renderer\": " + json_string(surface_.info().renderer) + ",\n";
  json += "  \"gl_version\": " + json_string(surface_.info().version) + "\n";
  return json + "}\n";
}

void ComparisonMode::save_with_sidecar(ImageRgba8 image, const std::string& what, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path folder = save_folder_.empty() ? fs::path(".") : fs::path(save_folder_);
  std::string base = name;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".png") == 0) base.resize(base.size() - 4);
  std::string sidecar = sidecar_json(what, image.width(), image.height());
  say("saving " + what + "...");
  // Everything the job needs is captured by value: it may run after this mode has changed setting.
  saves_.submit([image = std::move(image), path = (folder / base).string(), sidecar = std::move(sidecar)]() -> std::string {
    static const char* const kExtensions[] = {".png", ".json"};
    for (int attempt = 0; attempt < 8; ++attempt) {  // another program may take a free name first
      const std::string stem = first_free_stem(path, kExtensions, 2);
      try {
        save_image(stem + ".png", image, 4, Overwrite::Never);
      } catch (const ImageSaveError& error) {
        std::error_code ignored;
        if (fs::exists(stem + ".png", ignored)) continue;
        return std::string("could not save: ") + error.what();
      }
      const std::string problem = write_new_text_file(stem + ".json", sidecar);
      std::error_code ignored;
      const std::string where = fs::absolute(stem + ".png", ignored).string();
      return problem.empty() ? "saved " + where + " (+ .json)" : "saved " + where + ", but the sidecar failed: " + problem;
    }
    return "could not save: no free file name next to " + path;
  });
}

void ComparisonMode::save_slot_result(int index) {
  const Slot& s = slot(index);
  const int choice = s.wanted().method;
  const char* name = index == 0 ? "A" : "B";
  ImageRgba8 image;
  if (choice == kOriginalPicture) {
    image = *picture_;
  } else if (choice == kExactGaussian) {
    std::shared_ptr<const ExactResult> exact = exact_.find(exact_key());
    if (!exact) {
      say(std::string("nothing to save yet: the exact Gaussian of ") + name + " is still being computed", true);
      return;
    }
    image = exact->rounded;
  } else {
    if (!s.problem().empty()) {
      say(std::string("nothing to save: ") + name + " has no result (" + s.problem() + ")", true);
      return;
    }
    if (!pipeline_->has_result(index) || !s.up_to_date()) {
      // Its result is on its way (a CPU method on the worker): saved when it arrives.
      pending_save_[index] = true;
      say(std::string("saving ") + name + " when its result is ready");
      return;
    }
    image = pipeline_->read_result(index);
  }
  pending_save_[index] = false;
  if (applied_.pool != PoolMode::None) image = pipeline_->has_result(index) && pipeline_->result_is_pooled(index)
                                                   ? pipeline_->read_result(index)
                                                   : pool_2x2(image, applied_.pool);
  std::string name_on_disk = result_file_name(slot_id(choice), applied_.params, image.width(), image.height());
  if (applied_.pool != PoolMode::None) name_on_disk.insert(name_on_disk.size() - 4, std::string("-") + to_string(applied_.pool));
  save_with_sidecar(std::move(image), std::string("result ") + name, name_on_disk);
}

void ComparisonMode::save_difference() {
  const auto image_of = [&](int index) -> std::optional<ImageRgba8> {
    const int choice = slot(index).wanted().method;
    if (applied_.pool != PoolMode::None) {  // both as shown: pooled
      if (!pipeline_->has_result(index) || !pipeline_->result_is_pooled(index) || !slot(index).up_to_date())
        return std::nullopt;
      return pipeline_->read_result(index);
    }
    if (choice == kOriginalPicture) return *picture_;
    if (choice == kExactGaussian) {
      if (auto exact = exact_.find(exact_key())) return exact->rounded;
      return std::nullopt;
    }
    if (!pipeline_->has_result(index) || !slot(index).up_to_date()) return std::nullopt;
    return pipeline_->read_result(index);
  };
  const int first = view_.blink_swapped ? 1 : 0;
  const std::optional<ImageRgba8> a = image_of(first), b = image_of(1 - first);
  if (!a || !b) {
    say("nothing to save yet: A or B has no result for this setting", true);
    return;
  }
  ImageRgba8 difference(a->width(), a->height());
  const DifferenceStyle style{view_.gain, view_.signed_difference, view_.false_colour};
  for (std::size_t i = 0; i < difference.pixel_count(); ++i)
    difference.data()[i] = difference_colour(a->data()[i], b->data()[i], style);
  const std::string name = "gausslab-difference-" + slot_id(applied_.method_a) + "-vs-" + slot_id(applied_.method_b) +
                           "-" + result_file_name("x", applied_.params, a->width(), a->height()).substr(11);
  save_with_sidecar(std::move(difference), "difference", name);
}

void ComparisonMode::view_captured(ImageRgba8 view) {
  save_with_sidecar(std::move(view), "view", "gausslab-view-" + slot_id(applied_.method_a) + "-vs-" + slot_id(applied_.method_b) + ".png");
}

std::string ComparisonMode::export_compare_all() {
  const std::optional<CompareAllTable> table = compare_all_->table();
  if (!table || table->rows.empty()) return "nothing to export: run compare all first";
  namespace fs = std::filesystem;
  const fs::path folder = save_folder_.empty() ? fs::path(".") : fs::path(save_folder_);
  static const char* const kExtensions[] = {".csv"};
  const std::string stem = first_free_stem((folder / ("gausslab-compare-all-" + std::to_string(table->width) + "x" +
                                                      std::to_string(table->height))).string(),
                                           kExtensions, 1);
  const std::string problem = write_new_text_file(stem + ".csv", compare_all_csv(*table));
  return problem.empty() ? "exported " + stem + ".csv" : problem;
}

RunSummary ComparisonMode::automated_summary(const FrameContext& frame) {
  RunSummary summary;
  summary.method_id = slot_id(applied_.method_a);
  if (!options_.compare_id.empty() || view_.mode != CompareMode::A) {
    summary.compare = slot_id(applied_.method_b);
    summary.display = to_string(view_.mode);
  }
  summary.path = to_string(pipeline_->path());
  summary.path_reason = pipeline_->path_reason();
  summary.renderer = surface_.info().renderer;
  summary.gl_context = surface_.info().platform;
  summary.width = pipeline_->width();
  summary.height = pipeline_->height();
  summary.params = applied_.params;
  summary.frames = options_.frames;
  summary.frame_ms = frame.frame_ms.median();
  summary.frames_drawn = frame.frame_number;
  for (const StageTiming& stage : slot_a_.timer().stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  if (slot_shown(1))
    for (const StageTiming& stage : slot_b_.timer().stages()) summary.stages.emplace_back("b_" + stage.name, stage.median_ms);
  for (const StageTiming& stage : frame.gl_timer.stages()) summary.stages.emplace_back(stage.name, stage.median_ms);
  const std::optional<ComparisonNumbers> numbers = current_numbers();
  if (numbers && numbers->a_vs_exact)
    summary.accuracy = numbers->a_vs_exact;
  else
    summary.accuracy_note = too_large_to_measure() ? too_large_note()
                            : numbers && !numbers->error.empty() ? numbers->error
                            : applied_.method_a == kExactGaussian ? "A is the exact Gaussian"
                                                                   : "no measurement";
  if (!summary.compare.empty() && numbers) summary.a_vs_b = numbers->a_vs_b;
  summary.fallback = fallback_note_;
  if (applied_.pool != PoolMode::None) summary.pooling = to_string(applied_.pool);
  return summary;
}

int ComparisonMode::finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) {
  pipeline_->synchronize();
  collect_gpu_times();  // every sliced run finished so far goes into its slot's stages
  slot_a_.timer().flush();
  slot_b_.timer().flush();
  if (run_failed_) {
    std::fprintf(stderr, "gausslab: error: %s %s\n", slot_id(applied_.method_a).c_str(), run_failure_.c_str());
    return 1;
  }
  // The summary of the N timed frames, before anything else is drawn.
  const RunSummary summary = automated_summary(frame);
  const Overwrite overwrite = options_.overwrite ? Overwrite::Allowed : Overwrite::Never;
  if (!options_.screenshot.empty()) {
    const int choice = applied_.method_a;
    const std::shared_ptr<const ExactResult> exact = exact_.find(exact_key());
    if ((choice >= 0 && !pipeline_->has_result(0)) || (choice == kExactGaussian && !exact)) {
      std::fprintf(stderr, "gausslab: error: no result to save (%s)\n",
                   choice == kExactGaussian ? exact_.error().c_str() : slot_a_.problem().c_str());
      return 1;
    }
    const ImageRgba8 result = choice == kOriginalPicture ? *picture_
                              : choice == kExactGaussian ? exact->rounded
                                                         : pipeline_->read_result(0);
    save_image(options_.screenshot, result, 4, overwrite);
  }
  if (!options_.screenshot_view.empty()) {
    // The untimed frames show the final medians and the numbers.
    last_overlay_refresh_ = {};
    save_image(options_.screenshot_view, capture_view(), 3, overwrite);
  }
  std::printf("%s\n", summary_line(summary).c_str());
  std::fflush(stdout);
  return fallback_note_.empty() ? 0 : 3;  // it went on, but not with what was asked for
}

}  // namespace gausslab
