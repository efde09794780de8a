#pragma once
// The kernels of spatio-temporal whitening (sequence/ orchestrates them; core/sequence_maths.hpp
// holds the maths they share with the CPU reference). Every launcher enqueues on `stream`, checks
// the launch and never synchronises: a frame's shift, weights and whitening flow from kernel to
// kernel through device memory, with no host round trip.
#include <cuda_runtime.h>

#include "gausslab/core/sequence_maths.hpp"

namespace gausslab::seq {

// The history as the kernels see it: position j (frame t-1-j) is ring slot slots[j], whose pixels
// start at frames[j]; all frames share the width, height and stride of the current one.
struct HistoryArgs {
  int count = 0;
  int slots[kMaxHistory] = {};
  const float* frames[kMaxHistory] = {};
};

// What the host learns of a frame: its shift and whether it was whitened. The solve kernel writes
// it straight into mapped host memory, so no copy enters the stream.
struct FrameResult {
  ShiftRecord shift;
  int skip = 1;  // the weights could not be formed: not whitened
  int pad = 0;
};

// Sizes of the scratch buffers the launchers need for a width × height frame.
struct SequenceScratchSizes {
  int column_partials = 0;  // floats: one row of column sums per tile row
  int row_partials = 0;     // floats: one column of row sums per tile column
  int fine_blocks = 0;      // blocks of the fine-sum kernel: fine_blocks × kSumCount doubles
};
SequenceScratchSizes sequence_scratch_sizes(int width, int height);

// Projections: per-tile column and row partial sums (float), then the mean profiles (double).
void launch_projection_partials(const GreyView& frame, float* d_column_partials, float* d_row_partials,
                                cudaStream_t stream);
void launch_profiles(const float* d_column_partials, const float* d_row_partials, int width, int height,
                     double* d_columns, double* d_rows, cudaStream_t stream);

// The reference's high-passed profiles, kept for every later frame.
void launch_reference_profiles(const double* d_columns, const double* d_rows, int width, int height,
                               double* d_reference_columns, double* d_reference_rows, cudaStream_t stream);

// Coarse integer search (one block): high-passes the frame's profiles into the scratch
// (width + height doubles) and writes the best (kx, ky) to d_offset.
void launch_coarse_search(const double* d_columns, const double* d_rows, const double* d_reference_columns,
                          const double* d_reference_rows, int width, int height, int search_radius,
                          double* d_high_passed_scratch, int2* d_offset, cudaStream_t stream);

// r: the 3×3 binomial local mean of src into dst (dst_stride floats per row).
void launch_local_mean(const GreyView& src, float* d_dst, std::ptrdiff_t dst_stride, cudaStream_t stream);

// Fine sums over fine_region for the offset in d_offset (or (0, 0) when d_offset is null): one
// row of kSumCount doubles per block into d_partials (sizes.fine_blocks rows).
void launch_fine_sums(const GreyView& reference_mean, const GreyView& frame, const int2* d_offset,
                      double* d_partials, int blocks, cudaStream_t stream);

// One block: adds the partials in a fixed order, solves for the current frame's shift into
// d_records[current_slot] (status Reference when `reference` is set and the system is not
// degenerate), then computes the history weights into *d_weights; the shift and the weights'
// skip flag also go to *d_result (mapped host memory; may be null).
void launch_solve(const double* d_partials, int blocks, const int2* d_offset, int width, int height,
                  bool reference, ShiftRecord* d_records, int current_slot, const HistoryArgs& history, int degree,
                  double gamma, WhiteningWeights* d_weights, FrameResult* d_result, cudaStream_t stream);

// out = current - Σ c_j · history_j(x + k_j) with the weights in *d_weights (zero when skipped).
void launch_whiten(const GreyView& current, const HistoryArgs& history, const WhiteningWeights* d_weights,
                   float* d_out, std::ptrdiff_t out_stride, cudaStream_t stream);

}  // namespace gausslab::seq
