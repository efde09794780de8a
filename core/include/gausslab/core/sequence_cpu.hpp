#pragma once
// The steps of spatio-temporal whitening on the CPU (OpenMP): the reference the tests hold the
// GPU kernels to, and the path that runs where there is no CUDA device. Each step uses the
// shared maths of sequence_maths.hpp in the same order as the kernel does; sums are double.
#include <vector>

#include "gausslab/core/sequence_maths.hpp"

namespace gausslab::seq {

// The high-passed projections of a frame: `columns[x]` from the mean of column x, `rows[y]` from
// the mean of row y (partial sums per kProjectionTile tile in float, tiles added in double).
struct Profiles {
  std::vector<double> columns;
  std::vector<double> rows;
};
Profiles frame_profiles(const GreyView& frame);

// The raw (not high-passed) means, as the projection step leaves them.
void raw_profiles(const GreyView& frame, std::vector<double>& columns, std::vector<double>& rows);

// The integer offset (kx, ky) within ±radius (limited by search_radius_for) that best matches
// the frame's profiles against the reference's.
struct Offset {
  int kx = 0, ky = 0;
};
Offset coarse_offset(const Profiles& frame, const Profiles& reference, int search_radius);

// r: the 3×3 binomial local mean of `src` into dst (same size, `dst_stride` floats per row).
void local_mean_image(const GreyView& src, float* dst, std::ptrdiff_t dst_stride);

// The sums of the fine step for integer offset k over fine_region (reference local mean r, frame f).
ShiftSums fine_sums(const GreyView& r, const GreyView& f, int kx, int ky);

// Coarse search, fine sums and solve: the frame's shift against the reference.
ShiftRecord estimate_shift(const GreyView& reference_mean, const Profiles& reference_profiles, const GreyView& frame,
                           int search_radius);

// out = current - Σ c_j · history_j(x + k_j), accumulated in double, stored as float; the history
// frames (position j = frame t-1-j) share the current frame's size and stride.
void whiten_frame(const GreyView& current, const float* const* history, const WhiteningWeights& weights, float* out,
                  std::ptrdiff_t out_stride);

// The weights for the current frame's shift against the history's (position j = frame t-1-j).
WhiteningWeights history_weights(const ShiftRecord& current, const ShiftRecord* history, int count, int degree,
                                 double gamma);

}  // namespace gausslab::seq
