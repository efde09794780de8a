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
  return {};
}

}  // namespace gausslab
