#pragma once
// How a grey float frame is shown as RGBA8: level = offset + scale·value, clamped and rounded by
// to_unorm8 (the project's one float-to-8-bit rule). The viewer's sequence mode uses a stretch for
// frames (the 1st to 99.5th percentile) and a signed mapping for whitened frames (zero at mid grey).
#include <vector>

#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

struct GreyMapping {
  float offset = 0.0f;
  float scale = 255.0f;  // a [0, 1] frame as it is
};

GAUSSLAB_HD Rgba8 grey_display_pixel(float value, const GreyMapping& m) {
  const std::uint8_t level = to_unorm8(m.offset + m.scale * value);
  return Rgba8{level, level, level, 255};
}

// lo → black, hi → white (a flat range maps everything to mid grey).
GreyMapping stretch_mapping(double lo, double hi);
// 0 → mid grey, ±range·sigma → black / white.
GreyMapping signed_mapping(double sigma, double range);

// From a subsample of a frame (every `step`-th pixel in both directions): its 1st and 99.5th
// percentiles, and the noise deviation estimated from neighbour differences (1.4826 × the median
// absolute difference / √2: smooth backgrounds and sparse stars barely move it).
struct FrameStatistics {
  double low = 0, high = 1, noise = 0;
};
FrameStatistics frame_statistics(const ImageF32& frame, int step);

}  // namespace gausslab
