// lut_2d's host-side table: the products of the distinct 2D weights and the 256 8-bit values.
#include <cstdlib>

#include "gausslab/core/gaussian_weights.hpp"
#include "lut_2d_common.cuh"

namespace gausslab::lut2d {

std::vector<float> make_table(double sigma, int radius) {
  const std::vector<double> w = gaussian_weights(sigma, radius);  // w[radius + k] for k in [-r, r]
  std::vector<float> table(static_cast<std::size_t>(distinct_weights(radius)) * P::kValues);
  for (int b = 0; b <= radius; ++b)
    for (int a = 0; a <= b; ++a) {
      const double weight = w[static_cast<std::size_t>(radius + a)] * w[static_cast<std::size_t>(radius + b)];
      float* row = &table[static_cast<std::size_t>(weight_index(a, b)) * P::kValues];
      for (int v = 0; v < P::kValues; ++v) row[v] = static_cast<float>(weight * v);
    }
  return table;
}

std::vector<int> make_tap_rows(int radius) {
  std::vector<int> rows;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) rows.push_back(weight_index(std::abs(dx), std::abs(dy)) * P::kValues);
  return rows;
}

}  // namespace gausslab::lut2d
