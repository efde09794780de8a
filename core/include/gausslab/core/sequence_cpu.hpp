#pragma once
// The steps of spatio-temporal whitening on the CPU (OpenMP): the reference the tests hold the
// GPU kernels to, and the path that runs where there is no CUDA device. Each step uses the
// shared maths of sequence_maths.hpp, sequence_coarse.hpp, sequence_correlation.hpp and
// sequence_verdict.hpp in the same order as the kernels do; sums are double.
#include <vector>

#include "gausslab/core/sequence_coarse.hpp"
#include "gausslab/core/sequence_correlation.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/core/sequence_verdict.hpp"

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

// The integer offset (kx, ky) that best matches the frame's profiles against the reference's,
// among the lags of lag_window(side, centre, radius) per axis; `at_edge` when the best lag of an
// axis is at the end of its window.
struct Offset {
  int kx = 0, ky = 0;
  bool at_edge = false;
};
Offset integer_offset(const Profiles& frame, const Profiles& reference, int centre_x, int centre_y, int radius);

// The prepared coarse image of a frame (sequence_coarse.hpp): block sums, coarse means,
// high-passed and clipped values, and their summed-area tables.
struct CoarseBuffers {
  std::vector<double> values, sat, sat2;
  CoarseImage view() const { return {values.data(), sat.data(), sat2.data()}; }
};
CoarseBuffers coarse_image(const GreyView& frame, const CoarseGeometry& g);
// The prepared values and tables from the coarse means (the kernel's steps, in its order).
void prepare_coarse(const std::vector<double>& means, int width, int height, CoarseBuffers& out);

// Every lag's score (lag_of's order) and the best match among them.
std::vector<double> coarse_scores(const CoarseImage& frame, const CoarseImage& reference, const CoarseGeometry& g);
CoarseMatch best_coarse_match(const std::vector<double>& scores, const CoarseGeometry& g);

// r: the 3×3 binomial local mean of `src` into dst (same size, `dst_stride` floats per row).
void local_mean_image(const GreyView& src, float* dst, std::ptrdiff_t dst_stride);

// The sums of the fine step for integer offset k over fine_region (reference local mean r, frame f).
ShiftSums fine_sums(const GreyView& r, const GreyView& f, int kx, int ky);

// out = current - the prediction from the history (whiten_rows, accumulated in double, stored as
// float); the history frames (position j = frame t-1-j) share the current frame's size and stride.
// With `stats`, the residual statistics of the stats_region.
void whiten_frame(const GreyView& current, const float* const* history, const WhiteningWeights& weights, float* out,
                  std::ptrdiff_t out_stride, ResidualStats* stats = nullptr);

// The polynomial weights for the current frame's shift against the history's (position j = frame
// t-1-j), with the offsets and region of weight_offsets.
WhiteningWeights history_weights(const ShiftRecord& current, const ShiftRecord* history, int count, int degree,
                                 double gamma, int width, int height);

// The correlation weights (sequence_correlation.hpp) for the offsets in `weights` (set by
// history_weights): D from the frame and the history, then the solve. False (weights.skip stays 1)
// when no pixel or no solution is left.
bool apply_correlation_weights(const GreyView& current, const float* const* history, double gamma,
                               WhiteningWeights& weights);

// The correlation matrix D's upper triangle over the used positions (means of the products).
std::vector<double> correlation_matrix(const GreyView& current, const float* const* history,
                                       const WhiteningWeights& weights, const int* used, int n);

// Replaces the pixels of `frame` near a target's core (target_core, near_core; threshold > 0) whose
// whitened value is positive by their prediction (frame - whitened) or, with `median`, by
// median_prediction from the history frames the weights use (sharing the frame's size and stride).
void remove_targets(float* frame, std::ptrdiff_t frame_stride, const float* whitened, std::ptrdiff_t whitened_stride,
                    int width, int height, float threshold, const float* const* history,
                    const WhiteningWeights& weights, bool median);

}  // namespace gausslab::seq
