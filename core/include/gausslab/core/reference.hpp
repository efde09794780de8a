#pragma once
// The one truth: a float64 direct convolution with the same weights and border rule as every method,
// for the Gaussian and for every custom kernel (FilterParams::kernel; the names say "gaussian" from
// before custom kernels). Spread over all cores with OpenMP (results do not depend on the thread
// count). Exact for any border also where the kernel reaches beyond the image, as SciPy.
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

// Filters every channel of a host image in float64 with two direct 1D passes (the Gaussian, a mask,
// an x/y pair: separable, so this equals the 2D correlation up to float64 rounding), or with the row
// pass alone for FilterAxes::RowsOnly (scipy.ndimage.gaussian_filter1d / correlate1d along x); a 2D
// matrix kernel with the full 2D sum of the matrix as given (also when it is rank 1, which the
// methods run as its factors). Then divides by the kernel's sum when it is normalised. Returns
// width * height * channels values, interleaved like the input, not rounded or clamped.
std::vector<double> reference_gaussian(const ConstImageView& src, const FilterParams& params);

// The same, for the output pixels of `region` only (reads the whole image as the borders need):
// the accuracy check on a crop of a large image.
std::vector<double> reference_gaussian_region(const ConstImageView& src, const FilterParams& params,
                                              const Rect& region);

// The full direct 2D sum in float64 (a separable kernel as its outer product): slow, for
// cross-checking the separable reference on small images in tests.
std::vector<double> reference_gaussian_2d(const ConstImageView& src, const FilterParams& params);

}  // namespace gausslab
