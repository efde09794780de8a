#pragma once
// The sampled, truncated, normalised Gaussian that every method in gausslab approximates.
#include <vector>

namespace gausslab {

// floor(truncate * sigma + 0.5), as scipy.ndimage.gaussian_filter computes it.
int gaussian_radius(double sigma, double truncate);

// The 2 * radius + 1 weights exp(-x^2 / (2 sigma^2)) for x in [-radius, radius], normalised to sum
// exactly 1 in float64. Index radius is the centre tap.
std::vector<double> gaussian_weights(double sigma, int radius);

// The same weights rounded to float32 (renormalised in float64 first, so they sum to 1 within
// float rounding).
std::vector<float> gaussian_weights_f32(double sigma, int radius);

}  // namespace gausslab
