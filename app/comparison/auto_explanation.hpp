#pragma once
// Why auto runs what it runs, for the machine panel: with a CUDA device, the calibration table's
// predicted times of every candidate for the current problem, fastest first (the chosen one
// marked); without one, the fixed rule (no measurement). Read only once auto has chosen for this
// problem (MethodChoices::chosen), so the calibration is cached and nothing is measured in a frame.
#include <string>
#include <vector>

#include "comparison/method_choices.hpp"

namespace gausslab {

struct AutoExplanation {
  std::string headline;            // "auto → cpu_openmp: no CUDA device: the CPU filter on every core"
  std::vector<std::string> table;  // "separable_int8   0.087 ms  ← chosen", fastest first
  std::string note;                // where the table comes from, or why there is none
};

// Empty headline when no slot holds auto (or it has not chosen yet). The table is for what the
// label names: the slot's problem, or its float planes where auto ran on a picture's samples
// (MethodChoices::chosen_format).
AutoExplanation explain_auto(const MethodChoices& choices, const FilterProblem& problem, bool gpu);

}  // namespace gausslab
