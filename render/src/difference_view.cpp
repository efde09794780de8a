#include "gausslab/render/difference_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gausslab {

namespace {

std::uint8_t level(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

}  // namespace

std::array<float, 3> colour_map(double t, bool diverging) {
  const auto& points = diverging ? kDivergingMap : kSequentialMap;
  const double u = diverging ? (std::clamp(t, -1.0, 1.0) + 1.0) * 0.5 : std::clamp(t, 0.0, 1.0);
  const double position = u * (kColourMapPoints - 1);
  const int i = std::min(static_cast<int>(position), kColourMapPoints - 2);
  const float f = static_cast<float>(position - i);
  std::array<float, 3> colour{};
  for (int c = 0; c < 3; ++c) colour[c] = points[i][c] + (points[i + 1][c] - points[i][c]) * f;
  return colour;
}

Rgba8 difference_colour(Rgba8 a, Rgba8 b, const DifferenceStyle& style) {
  return difference_colour({double(a.r - b.r), double(a.g - b.g), double(a.b - b.b)}, style);
}

Rgba8 difference_colour(const std::array<double, 3>& levels, const DifferenceStyle& style) {
  const double d[3] = {levels[0] / 255.0 * style.gain, levels[1] / 255.0 * style.gain, levels[2] / 255.0 * style.gain};
  if (!style.false_colour) {
    double v[3];
    for (int c = 0; c < 3; ++c) v[c] = style.signed_values ? 0.5 + 0.5 * std::clamp(d[c], -1.0, 1.0) : std::abs(d[c]);
    return Rgba8{level(v[0]), level(v[1]), level(v[2]), 255};
  }
  int largest = 0;
  for (int c = 1; c < 3; ++c)
    if (std::abs(d[c]) > std::abs(d[largest])) largest = c;
  const std::array<float, 3> colour = colour_map(style.signed_values ? d[largest] : std::abs(d[largest]), style.signed_values);
  return Rgba8{level(colour[0]), level(colour[1]), level(colour[2]), 255};
}

}  // namespace gausslab
