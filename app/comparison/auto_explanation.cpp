#include "comparison/auto_explanation.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include "gausslab/cuda/auto_method.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

AutoExplanation explain_auto(const MethodChoices& choices, const FilterProblem& slot_problem, bool gpu) {
  AutoExplanation out;
  const int index = choices.find("auto");
  const std::string runs = choices.chosen(index);
  if (runs.empty()) return out;
  // The problem auto chose for: the slot's RGBA8, or a picture's samples as float planes.
  FilterProblem problem = slot_problem;
  problem.format = choices.chosen_format(index);
  out.headline = "auto \u2192 " + runs + ": " + choices.chosen_why(index);
  if (!gpu) {
    out.note = "without a CUDA device auto follows a fixed rule (cpu_openmp on a machine with more than one "
               "hardware thread, else cpu_separable): nothing is measured, so every run here is the same";
    return out;
  }
  const CalibrationTable table = auto_calibration(problem.format);  // cached: auto has chosen already
  std::vector<std::pair<double, std::string>> times;
  for (const std::string& id : auto_candidates(problem, AccuracyClass::Approximate, true))
    if (const std::optional<double> ms = predict_ms(table, id, problem)) times.emplace_back(*ms, id);
  std::sort(times.begin(), times.end());
  for (const auto& [ms, id] : times) {
    char line[160];
    std::snprintf(line, sizeof line, "%-20s %8.3f ms%s", id.c_str(), ms, id == runs ? "  \u2190 chosen" : "");
    out.table.emplace_back(line);
  }
  out.note = "predicted for " + std::to_string(problem.width) + " x " + std::to_string(problem.height) + " " +
             to_string(problem.format) + " from the calibration measured on " + table.gpu + " (" +
             std::to_string(table.width) + " x " + std::to_string(table.height) + ", cached in " +
             calibration_cache_path() + ")";
  if (!table.rejected.empty()) out.note += "; rejected for missing their bound: " + std::to_string(table.rejected.size());
  return out;
}

}  // namespace gausslab
