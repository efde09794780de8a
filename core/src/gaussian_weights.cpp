#include "gausslab/core/gaussian_weights.hpp"

#include <cmath>
#include <stdexcept>

namespace gausslab {

int gaussian_radius(double sigma, double truncate) {
  // SciPy: lw = int(truncate * sd + 0.5)
  return static_cast<int>(std::floor(truncate * sigma + 0.5));
}

std::vector<double> gaussian_weights(double sigma, int radius) {
  if (!(sigma > 0) || radius < 0) throw std::invalid_argument("gaussian_weights: sigma must be > 0, radius >= 0");
  std::vector<double> weights(2 * static_cast<std::size_t>(radius) + 1);
  const double inverse_two_variance = -0.5 / (sigma * sigma);
  double sum = 0.0;
  for (int x = -radius; x <= radius; ++x) {
    const double w = std::exp(inverse_two_variance * x * x);
    weights[x + radius] = w;
    sum += w;
  }
  for (double& w : weights) w /= sum;
  return weights;
}

std::vector<float> gaussian_weights_f32(double sigma, int radius) {
  const std::vector<double> weights = gaussian_weights(sigma, radius);
  return std::vector<float>(weights.begin(), weights.end());
}

}  // namespace gausslab
