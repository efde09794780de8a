#pragma once
// The text and preview files gausslab-sequence writes, as pure functions (tests check them).
#include <string>
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/sequence/synthetic.hpp"

namespace gausslab {

struct ShiftRow {
  double dx, dy;  // NaN where no shift was estimated
};

// "frame,dx,dy\n0,0.000000,0.000000\n1,nan,nan\n..."
std::string shifts_csv(const std::vector<ShiftRow>& rows);
// The synthetic truth: the shifts, and the target's track (frame,x,y,peak,inside).
std::string true_shifts_csv(const SyntheticSequence& sky, int frames);
std::string target_track_csv(const SyntheticSequence& sky, int frames);

// 1.4826 × the median absolute deviation from the median: the noise's standard deviation, robust
// to stars and targets.
double robust_deviation(const ImageF32& image);

// 8-bit previews: a frame stretched between its 1st and 99.5th percentiles; a whitened frame with
// zero at mid grey and ±4 robust deviations at black and white.
ImageRgba8 frame_preview(const ImageF32& frame);
ImageRgba8 whitened_preview(const ImageF32& whitened);

}  // namespace gausslab
