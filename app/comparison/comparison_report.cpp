#include "comparison/comparison_report.hpp"

#include <cmath>
#include <cstdio>

#include "gausslab/render/result_pipeline.hpp"
#include "viewer/frame_omissions.hpp"

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

std::string sidecar_json(const Comparison& comparison, const ViewState& view, const std::string& what, int width,
                         int height) {
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  const FilterState& applied = comparison.settings().applied();
  const MethodChoices& choices = comparison.settings().choices();
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  const MachineFacts& machine = comparison.machine();
  const FilterParams& p = applied.params;
  std::string json = "{\n";
  json += "  \"gausslab_version\": " + json_string(GAUSSLAB_VERSION) + ",\n";
  json += "  \"what\": " + json_string(what) + ",\n";
  json += "  \"source\": " + json_string(comparison.picture().name) + ",\n";
  json += "  \"method_a\": " + json_string(choices.id(applied.method_a)) + ",\n";
  json += "  \"method_b\": " + json_string(choices.id(applied.method_b)) + ",\n";
  // What auto ran (and why), and the reference slots' files: the sidecar says what was compared.
  for (int slot = 0; slot < 2; ++slot) {
    const int choice = slot == 0 ? applied.method_a : applied.method_b;
    const std::string key = slot == 0 ? "method_a" : "method_b";
    if (const std::string runs = choices.chosen(choice); !runs.empty())
      json += "  \"" + key + "_runs\": {\"method\": " + json_string(runs) + ", \"why\": " +
              json_string(choices.chosen_why(choice)) + "},\n";
    if (is_reference_file(choice)) {
      const ReferenceImage& file = comparison.reference(reference_file_slot(choice)).image;
      json += "  \"" + key + "_file\": {\"path\": " + json_string(file.path) + ", \"samples\": " +
              json_string(file.type) + "},\n";
    }
  }
  json += "  \"view\": " + json_string(to_string(view.mode)) + ",\n";
  // The difference view's settings, so that a saved difference image can be read back into levels.
  json += "  \"difference_view\": {\"gain\": " + json_number(view.gain) +
          ", \"signed\": " + (view.signed_difference ? "true" : "false") +
          ", \"colour_map\": " + json_string(view.false_colour ? "false colour" : "grey") + "},\n";
  json += "  \"sigma\": " + json_number(p.sigma) + ",\n";
  json += "  \"truncate\": " + json_number(p.truncate) + ",\n";
  json += "  \"radius\": " + std::to_string(p.radius()) + ",\n";
  json += "  \"border\": " + json_string(to_string(p.border)) + ",\n";
  json += "  \"pooling\": " + json_string(to_string(applied.pool)) + ",\n";
  json += "  \"width\": " + std::to_string(width) + ",\n";
  json += "  \"height\": " + std::to_string(height) + ",\n";
  json += "  \"processed_size\": [" + std::to_string(pipeline.width()) + ", " + std::to_string(pipeline.height()) + "],\n";
  json += "  \"stage_median_ms\": {\"a\": " + json_stages(comparison.runs().lane(0).slot.timer().stages()) +
          ", \"b\": " + json_stages(comparison.runs().lane(1).slot.timer().stages()) +
          ", \"gl\": " + json_stages(comparison.timing().overlay().gl) + "},\n";
  json += "  \"errors_in_8bit_levels\": {\"a_vs_b\": " + json_stats(numbers ? numbers->a_vs_b : std::nullopt) +
          ", \"a_vs_exact\": " + json_stats(numbers ? numbers->a_vs_exact : std::nullopt) +
          ", \"b_vs_exact\": " + json_stats(numbers ? numbers->b_vs_exact : std::nullopt) + "},\n";
  json += "  \"output_path\": " + json_string(to_string(pipeline.path())) + ",\n";
  json += "  \"gpu\": " + json_string(machine.cuda) + ",\n";
  json += "  \"gl_renderer\": " + json_string(machine.gl.renderer) + ",\n";
  json += "  \"gl_version\": " + json_string(machine.gl.version) + "\n";
  return json + "}\n";
}

std::optional<ImageRgba8> shown_result(const Comparison& comparison, int slot, std::string& why) {
  const int choice = comparison.runs().lane(slot).slot.wanted().method;
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  if (choice == kOriginalPicture) return *comparison.picture().processed;
  if (choice == kExactGaussian) {
    if (const std::shared_ptr<const ExactResult> exact = comparison.work().exact().find(exact_key(comparison)))
      return exact->rounded;
    why = comparison.work().exact().error();
    return std::nullopt;
  }
  if (!pipeline.has_result(slot)) {
    why = comparison.runs().lane(slot).slot.problem();
    return std::nullopt;
  }
  return pipeline.read_result(slot);
}

RunSummary automated_summary(const Comparison& comparison, const ViewState& view, bool compare_given, int frames,
                             double frame_ms, long long frames_drawn, const std::vector<StageTiming>& gl_stages) {
  const FilterState& applied = comparison.settings().applied();
  const MethodChoices& choices = comparison.settings().choices();
  const ResultPipeline& pipeline = comparison.runs().pipeline();
  RunSummary summary;
  summary.method_id = choices.id(applied.method_a);
  summary.auto_runs = choices.chosen(applied.method_a);
  summary.auto_why = choices.chosen_why(applied.method_a);
  if (const std::string live = choices.chosen_for_slots(applied.method_a); live != summary.auto_runs)
    summary.stages_method = live;
  if (compare_given || view.mode != CompareMode::A) {
    summary.compare = choices.id(applied.method_b);
    summary.display = to_string(view.mode);
  }
  for (int choice : {applied.method_b, applied.method_a})
    if (is_reference_file(choice))
      summary.compare_samples = comparison.reference(reference_file_slot(choice)).image.type;
  summary.path = to_string(pipeline.path());
  summary.path_reason = pipeline.path_reason();
  summary.map_ahead_problem = pipeline.map_ahead_problem();
  summary.omitted = frame_omissions().names;
  summary.renderer = comparison.machine().gl.renderer;
  summary.gl_context = comparison.machine().gl.platform;
  summary.width = pipeline.width();
  summary.height = pipeline.height();
  summary.params = applied.params;
  summary.frames = frames;
  summary.frame_ms = frame_ms;
  summary.frames_drawn = frames_drawn;
  for (const StageTiming& stage : comparison.runs().lane(0).slot.timer().stages())
    summary.stages.emplace_back(stage.name, stage.median_ms);
  if (comparison.runs().lane(1).shown)
    for (const StageTiming& stage : comparison.runs().lane(1).slot.timer().stages())
      summary.stages.emplace_back("b_" + stage.name, stage.median_ms);
  for (const StageTiming& stage : gl_stages) summary.stages.emplace_back(stage.name, stage.median_ms);
  if (const PictureLevels* levels = comparison.picture().processed_levels.get()) {
    summary.picture_samples = levels->type;
    summary.units_per_level = levels->units_per_level;
  }
  const std::optional<ComparisonNumbers> numbers = current_numbers(comparison);
  if (numbers && numbers->a_vs_exact)
    summary.accuracy = numbers->a_vs_exact;
  else
    summary.accuracy_note = too_large_to_measure(comparison)               ? too_large_note(comparison)
                            : numbers && !numbers->error.empty()           ? numbers->error
                            : applied.method_a == kExactGaussian           ? "A is the exact Gaussian"
                                                                           : "no measurement";
  if (!summary.compare.empty() && numbers) summary.a_vs_b = numbers->a_vs_b;
  summary.fallback = comparison.messages().fallbacks();
  if (applied.pool != PoolMode::None) summary.pooling = to_string(applied.pool);
  return summary;
}

}  // namespace gausslab
