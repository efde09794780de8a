#pragma once
// The one truth: a float64 direct convolution with the same weights and border rule as every method.
// Spread over all cores with OpenMP (results do not depend on the thread count).
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

// Filters every channel of a host image in float64 with two direct 1D passes (the Gaussian is
// separable, so this equals the 2D convolution up to float64 rounding), or with the row pass alone
// for FilterAxes::RowsOnly (scipy.ndimage.gaussian_filter1d along x). Returns
// width * height * channels values, interleaved like the input, not rounded or clamped.
std::vector<double> reference_gaussian(const ConstImageView& src, const FilterParams& params);

// The same, for the output pixels of `region` only (reads the whole image as the borders need):
// the accuracy check on a crop of a large image.
std::vector<double> reference_gaussian_region(const ConstImageView& src, const FilterParams& params,
                                              const Rect& region);

// The full (2r+1)^2 direct 2D convolution in float64: slow, for cross-checking the separable
// reference on small images in tests.
std::vector<double> reference_gaussian_2d(const ConstImageView& src, const FilterParams& params);

}  // namespace gausslab
