#include "actions/keyboard.hpp"

#include <algorithm>
#include <cmath>

namespace gausslab {

double step_sigma(double sigma, double delta) {
  const double stepped = std::round((sigma + delta) * 1e9) / 1e9;
  return std::clamp(stepped, kMinSigma, kMaxSigma);
}

double step_offset(double offset, double delta) {
  const double stepped = std::round((offset + delta) * 1e9) / 1e9;
  return std::clamp(stepped, -kMaxDisplayOffset, kMaxDisplayOffset);
}

CompareMode next_display(CompareMode mode) {
  return static_cast<CompareMode>((static_cast<int>(mode) + 1) % static_cast<int>(CompareMode::Count));
}

}  // namespace gausslab
