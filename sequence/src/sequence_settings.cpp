// The sequence settings' ranges, checked apart from the engines: the command-line parser uses this
// alone (and so can be tested and fuzzed without the GPU layer).
#include <cmath>
#include <string>

#include "gausslab/sequence/sequence_engine.hpp"

namespace gausslab {

std::string validate(const SequenceSettings& s) {
  if (s.history < 1 || s.history > seq::kMaxHistory)
    return "--history " + std::to_string(s.history) + " is outside 1.." + std::to_string(seq::kMaxHistory);
  if (s.degree < 0 || s.degree > seq::kMaxDegree)
    return "--degree " + std::to_string(s.degree) + " is outside 0.." + std::to_string(seq::kMaxDegree);
  if (!std::isfinite(s.gamma) || s.gamma <= 0.0 || s.gamma > 1e6)
    return "--gamma must be a number in (0, 1e6] (it keeps the weights' system well posed; 1e-6 matches the moments "
           "almost exactly, large values give the plain mean of the history)";
  if (s.search_radius < 0 || s.search_radius > seq::kMaxSearchRadius)
    return "--search-radius " + std::to_string(s.search_radius) + " is outside 0.." +
           std::to_string(seq::kMaxSearchRadius);
  if (!std::isfinite(s.min_match) || s.min_match < 0.0 || s.min_match > 1000.0)
    return "--min-match must be a number in [0, 1000] (the coarse match's significance; 0 accepts every match)";
  if (!std::isfinite(s.max_residual) || s.max_residual < 1.0)
    return "--max-residual must be a number of at least 1 (times the history's robust deviation)";
  const double k = s.target_threshold;
  if (!std::isfinite(k) || k < 0.0 || (k > 0.0 && k < 2.0))
    return "--target-threshold must be 0 (no target removal) or at least 2 robust deviations (below, the noise "
           "itself would be taken for targets)";
  return {};
}

const char* to_string(WeightMethod method) {
  return method == WeightMethod::Correlation ? "correlation" : "polynomial";
}

bool operator==(const SequenceSettings& a, const SequenceSettings& b) {
  return a.history == b.history && a.weights == b.weights && a.degree == b.degree && a.gamma == b.gamma &&
         a.search_radius == b.search_radius && a.min_match == b.min_match && a.max_residual == b.max_residual &&
         a.target_threshold == b.target_threshold;
}

}  // namespace gausslab
