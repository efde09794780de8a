#include "viewer/run_report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "gausslab/core/statistics.hpp"

namespace gausslab {

namespace {

std::string number(double value, const char* format = "%.4g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// Quotes a value for key="value" (double quotes inside become single ones, so the line stays parseable).
std::string quoted(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return "\"" + text + "\"";
}

}  // namespace

std::string result_file_name(const std::string& method_id, const FilterParams& params, int width, int height) {
  std::string name = "gausslab-" + method_id + "-sigma" + number(params.sigma, "%.6g") + "-" + to_string(params.border);
  if (params.fixed_radius >= 0)
    name += "-radius" + std::to_string(params.fixed_radius);
  else if (params.truncate != kDefaultTruncate)
    name += "-truncate" + number(params.truncate, "%.6g");
  return name + "-" + std::to_string(width) + "x" + std::to_string(height) + ".png";
}

std::string stage_key(const std::string& name) {
  std::string key;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!key.empty() && key.back() != '_')
      key += '_';
  }
  while (!key.empty() && key.back() == '_') key.pop_back();
  return key.empty() ? "stage" : key;
}

void RollingMedian::add(double value) {
  values_.push_back(value);
  while (values_.size() > capacity_) values_.pop_front();
}

double RollingMedian::median() const {
  return gausslab::median(std::vector<double>(values_.begin(), values_.end()));
}

std::string summary_line(const RunSummary& s) {
  std::string line = "gausslab: method=" + s.method_id;
  if (!s.compare.empty()) line += " compare=" + s.compare + " display=" + s.display;
  line += " path=" + s.path + " path_reason=" + quoted(s.path_reason) + " renderer=" + quoted(s.renderer);
  if (!s.gl_context.empty()) line += " gl_context=" + quoted(s.gl_context);
  line += " size=" + std::to_string(s.width) + "x" + std::to_string(s.height);
  line += " sigma=" + number(s.params.sigma, "%.6g") + " radius=" + std::to_string(s.params.radius()) +
          " border=" + to_string(s.params.border);
  if (!s.pooling.empty()) line += " pooling=" + s.pooling;
  line += " frames=" + std::to_string(s.frames) + " frame_ms=" + number(s.frame_ms, "%.3f");
  double total = 0;
  for (const auto& stage : s.stages) total += stage.second;
  line += " stages_ms=" + number(total, "%.3f");
  for (const auto& [name, ms] : s.stages) line += " " + stage_key(name) + "=" + number(ms, "%.3f");
  const auto db = [](double value) { return std::isinf(value) ? std::string("inf") : number(value, "%.2f"); };
  if (s.accuracy) {
    line += " max_error=" + number(s.accuracy->unrounded.max_abs, "%.6g");
    line += " max_error_8bit=" + number(s.accuracy->rounded.max_abs, "%.6g");
    line += " psnr=" + db(s.accuracy->unrounded.psnr_db);
    if (s.units_per_level > 0) line += " max_error_own=" + number(s.accuracy->unrounded.max_abs * s.units_per_level, "%.6g");
  } else {
    line += " max_error=n/a";
    if (!s.accuracy_note.empty()) line += " accuracy_note=" + quoted(s.accuracy_note);
  }
  if (s.a_vs_b) {
    const DifferenceFigures& f = s.a_vs_b->unrounded;
    line += " ab_max_abs=" + number(f.max_abs, "%.9g") + " ab_mean_abs=" + number(f.mean_abs, "%.9g") +
            " ab_rms=" + number(f.rms, "%.9g") + " ab_psnr=" + db(f.psnr_db);
    if (f.max_x >= 0)
      line += " ab_max_at=" + std::to_string(f.max_x) + "," + std::to_string(f.max_y) + "," + std::to_string(f.max_channel);
    line += " ab_max_abs_8bit=" + number(s.a_vs_b->rounded.max_abs, "%.9g");
    if (s.units_per_level > 0) line += " ab_max_abs_own=" + number(f.max_abs * s.units_per_level, "%.9g");
  }
  if (!s.picture_samples.empty()) line += " picture_samples=" + quoted(s.picture_samples);
  if (!s.compare_samples.empty()) line += " compare_samples=" + quoted(s.compare_samples);
  if (!s.stages_method.empty()) line += " stages_method=" + s.stages_method;
  if (!s.auto_runs.empty()) line += " auto_runs=" + s.auto_runs + " auto_why=" + quoted(s.auto_why);
  if (!s.display_transform.empty()) line += " display_transform=" + quoted(s.display_transform);
  if (s.frames_drawn > 0) line += " frames_drawn=" + std::to_string(s.frames_drawn);
  if (!s.map_ahead_problem.empty()) line += " map_ahead_problem=" + quoted(s.map_ahead_problem);
  if (!s.omitted.empty()) line += " omitted=" + s.omitted;
  if (!s.fallback.empty()) line += " fallback=" + quoted(s.fallback);
  return line;
}

}  // namespace gausslab
