#include "gausslab/core/grey_display.hpp"

#include <algorithm>
#include <cmath>

namespace gausslab {

GreyMapping stretch_mapping(double lo, double hi) {
  if (!(hi > lo)) return GreyMapping{127.5f, 0.0f};
  const double scale = 255.0 / (hi - lo);
  return GreyMapping{static_cast<float>(-lo * scale), static_cast<float>(scale)};
}

GreyMapping signed_mapping(double sigma, double range) {
  if (!(sigma > 0.0) || !(range > 0.0)) return GreyMapping{127.5f, 0.0f};
  return GreyMapping{127.5f, static_cast<float>(127.5 / (range * sigma))};
}

namespace {
double quantile(std::vector<float>& v, double q) {
  if (v.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}
}  // namespace

FrameStatistics frame_statistics(const ImageF32& frame, int step) {
  FrameStatistics s;
  step = std::max(step, 1);
  std::vector<float> values, differences;
  for (int y = 0; y < frame.height(); y += step)
    for (int x = 0; x < frame.width(); x += step) {
      values.push_back(frame.at(x, y));
      if (x + 1 < frame.width()) differences.push_back(std::fabs(frame.at(x + 1, y) - frame.at(x, y)));
    }
  if (values.empty()) return s;
  s.low = quantile(values, 0.01);
  s.high = quantile(values, 0.995);
  s.noise = 1.4826 * quantile(differences, 0.5) / std::sqrt(2.0);
  return s;
}

}  // namespace gausslab
