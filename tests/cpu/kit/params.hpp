#pragma once
// Filter parameters as the CPU model tests (and the GPU tests) write them.
#include <algorithm>

#include "gausslab/core/filter_params.hpp"

namespace gausslab::test {

// sigma and border (and truncate) as a user sets them.
inline FilterParams sigma_params(double sigma, BorderMode border, double truncate = kDefaultTruncate) {
  FilterParams params;
  params.sigma = sigma;
  params.border = border;
  params.truncate = truncate;
  return params;
}

// A fixed radius (sigma radius / 4, within the valid range) and border.
inline FilterParams radius_params(int radius, BorderMode border) {
  FilterParams params = sigma_params(std::clamp(radius / 4.0, kMinSigma, kMaxSigma), border);
  params.fixed_radius = radius;
  return params;
}

// A 1D signal along x (gaussian_filter1d): sigma, border, and a fixed radius when not -1.
inline FilterParams signal_params(double sigma, BorderMode border, int fixed_radius = -1) {
  FilterParams params = sigma_params(sigma, border);
  params.fixed_radius = fixed_radius;
  params.axes = FilterAxes::RowsOnly;
  return params;
}

}  // namespace gausslab::test
