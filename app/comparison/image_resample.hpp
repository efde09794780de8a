#pragma once
// Resampling the picture to a chosen size (so timings can be seen at 1920×1080, 3840×2160, ...).
// Done once per load or size change on the CPU, never per frame.
#include "gausslab/core/image.hpp"

namespace gausslab {

// Separable resampling with a tent filter whose support widens with the reduction (bilinear when
// enlarging, an area-like average when shrinking), edges clamped, rounded with to_unorm8.
// The same size returns an exact copy. Throws std::invalid_argument for an empty source or size.
ImageRgba8 resample(const ImageRgba8& source, int width, int height);

}  // namespace gausslab
