#pragma once
// The kernels of spatio-temporal whitening (sequence/ orchestrates them; core/sequence_*.hpp
// holds the maths they share with the CPU reference). Every launcher enqueues on `stream`, checks
// the launch and never synchronises: a frame's coarse match, shift, verdict, weights, whitening and
// target removal flow from kernel to kernel through device memory (the engine's SequenceState and
// the ring's records), with no host round trip.
#include <cuda_runtime.h>

#include "gausslab/core/sequence_coarse.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/core/sequence_verdict.hpp"

namespace gausslab::seq {

// The history as the kernels see it: position j (frame t-1-j) is ring slot slots[j], whose pixels
// start at frames[j]; all frames share the width, height and stride of the current one.
struct HistoryArgs {
  int count = 0;
  int slots[kMaxHistory] = {};
  const float* frames[kMaxHistory] = {};
};

// What the host learns of a frame: its record (shift, status, flags, statistics) and whether its
// whitened frame is kept. The last kernel of the frame writes it straight into mapped host memory,
// so no copy enters the stream.
struct FrameResult {
  ShiftRecord shift;
  int skip = 1;      // the weights could not be formed: not whitened
  int whitened = 0;  // the whitened frame is kept (the segment's history was full, the frame stays)
};

// The settings the kernels read (constant for a sequence, so a captured graph stays valid).
struct FrameSettings {
  int history = 20;
  int degree = 2;
  double gamma = 0.01;
  int search_radius = 8;
  double min_match = kDefaultMinMatch;
  double max_residual = kDefaultMaxResidual;
  double target_threshold = kDefaultTargetThreshold;
};

// A prepared coarse image in device memory: values, then its two summed-area tables.
GAUSSLAB_HD int coarse_image_doubles(const CoarseGeometry& g) { return g.pixels() + 2 * (g.width + 1) * (g.height + 1); }
GAUSSLAB_HD CoarseImage coarse_view(const double* p, const CoarseGeometry& g) {
  const int table = (g.width + 1) * (g.height + 1);
  return {p, p + g.pixels(), p + g.pixels() + table};
}

// Sizes of the scratch buffers the launchers need for a width × height frame.
struct SequenceScratchSizes {
  int column_partials = 0;  // floats: one row of column sums per tile row
  int row_partials = 0;     // floats: one column of row sums per tile column
  int block_sums = 0;       // floats: the coarse geometry's block sums
  int fine_blocks = 0;      // blocks of the fine-sum kernel: fine_blocks × kSumCount doubles
  int gram_blocks = 0;      // blocks of the correlation kernel: gram_blocks × gram_partial_stride(N) doubles
};
// Doubles per block of the correlation kernel's partials for a history of n frames: D's triangle
// and the pixel count.
GAUSSLAB_HD int gram_partial_stride(int n) { return n * (n + 1) / 2 + 1; }
SequenceScratchSizes sequence_scratch_sizes(int width, int height);

// Per frame, in this order. `state` is the engine's SequenceState in device memory.

// Projections and the coarse image's block sums: per-tile column and row partial sums (float),
// then the mean profiles (double).
void launch_projection_partials(const GreyView& frame, const CoarseGeometry& g, float* d_column_partials,
                                float* d_row_partials, float* d_block_sums, cudaStream_t stream);
void launch_profiles(const float* d_column_partials, const float* d_row_partials, int width, int height,
                     double* d_columns, double* d_rows, cudaStream_t stream);

// One block: starts the frame (begin_frame) and prepares its coarse image into d_coarse.
void launch_coarse_prepare(const float* d_block_sums, const CoarseGeometry& g, double* d_coarse, SequenceState* state,
                           cudaStream_t stream);

// Every lag's score against the reference's coarse image (d_scores) and, when the previous frame
// did not match, against the previous frame's (d_scores + lag_count).
void launch_coarse_scores(const double* d_coarse, const double* d_reference_coarse, const double* d_previous_coarse,
                          const CoarseGeometry& g, const SequenceState* state, double* d_scores, cudaStream_t stream);

// One block: the coarse decision (decide_match; on a cut the previous frame's record becomes the
// new segment's reference and its coarse image and profiles the reference's), the frame's
// high-passed profiles into d_profiles, and the integer search around the coarse estimate into
// state->offset_x/y.
void launch_integer_search(const double* d_scores, const CoarseGeometry& g, const double* d_columns,
                           const double* d_rows, int width, int height, const FrameSettings& settings,
                           double* d_profiles, const double* d_previous_profiles, double* d_reference_profiles,
                           const double* d_previous_coarse, double* d_reference_coarse, ShiftRecord* d_records,
                           int previous_slot, SequenceState* state, cudaStream_t stream);

// On a cut (state->cut), the local mean of the previous frame into the reference's; nothing otherwise.
void launch_cut_reference_mean(const GreyView& previous, float* d_reference_mean, std::ptrdiff_t stride,
                               const SequenceState* state, cudaStream_t stream);

// The first frames, while there is no reference: the frame's local mean into the reference's and
// its high-passed profiles into d_profiles and d_reference_profiles.
void launch_local_mean(const GreyView& src, float* d_dst, std::ptrdiff_t dst_stride, cudaStream_t stream);
void launch_candidate_profiles(const double* d_columns, const double* d_rows, int width, int height,
                               double* d_profiles, double* d_reference_profiles, cudaStream_t stream);

// Fine sums over fine_region for the integer search's offset in `state` (or (0, 0) when null): one
// row of kSumCount doubles per block into d_partials (sizes.fine_blocks rows).
void launch_fine_sums(const GreyView& reference_mean, const GreyView& frame, const SequenceState* state,
                      double* d_partials, int blocks, cudaStream_t stream);

// One block: adds the partials in a fixed order and solves for the shift; `candidate`: the frame
// is tried as the first reference (it becomes it unless degenerate; its coarse image becomes the
// reference's); otherwise shift_verdict. Then the polynomial weights into *d_weights (offsets and
// region for the correlation weights) and, when a backward job is due (backward_target), its
// weights into *d_backward_weights (source: the early frame's position in `span`, this frame at
// position 0, the frames after the early one before it; skip otherwise).
void launch_solve(const double* d_partials, int blocks, int width, int height, bool candidate,
                  const FrameSettings& settings, ShiftRecord* d_records, int current_slot, const HistoryArgs& history,
                  const HistoryArgs& span, const double* d_coarse, double* d_reference_coarse, int coarse_doubles,
                  SequenceState* state, WhiteningWeights* d_weights, WhiteningWeights* d_backward_weights,
                  cudaStream_t stream);

// The correlation weights: D's partial sums per block, then one block sums them and solves for c
// (sequence_correlation.hpp) into *d_weights.
void launch_correlation_weights(const GreyView& current, const HistoryArgs& history, double gamma,
                                WhiteningWeights* d_weights, double* d_gram_partials, int gram_blocks,
                                cudaStream_t stream);

// out = current - the prediction from the history with the weights in *d_weights (zero when
// skipped), and the residual's statistics added into *d_stats. `backward`: the frame whitened is
// history position weights->source (the backward job), and nothing is written when skipped.
void launch_whiten(const GreyView& current, const HistoryArgs& history, const WhiteningWeights* d_weights, float* d_out,
                   std::ptrdiff_t out_stride, ResidualStats* d_stats, bool backward, cudaStream_t stream);

// One block: the residual's verdict (residual_verdict), the removal thresholds, end_frame, and the
// frame's result into *d_result (mapped host memory); zeroes both statistics for the next frame.
void launch_residual_verdict(const WhiteningWeights* d_weights, const WhiteningWeights* d_backward_weights,
                             ResidualStats* d_stats, ResidualStats* d_backward_stats, const FrameSettings& settings,
                             ShiftRecord* d_records, int current_slot, SequenceState* state, FrameResult* d_result,
                             cudaStream_t stream);

// Target removal: the target cores (target_core) of the frame above state->removal_threshold and of
// the backward job's frame above state->backward_threshold into two byte maps (d_cores, 2 × width
// × height); then their pixels near a core with a positive whitened value replaced (by the
// prediction, or median_prediction with state->median; the backward job always by the median),
// and the whitened frame zeroed when it is not kept (state->keep). `backward_possible`: the span
// can hold a backward job (the host's bound; the device decides).
void launch_target_removal(const GreyView& current, float* d_whitened, const float* d_backward,
                           std::ptrdiff_t out_stride, const HistoryArgs& history, const WhiteningWeights* d_weights,
                           const HistoryArgs& span, const WhiteningWeights* d_backward_weights, unsigned char* d_cores,
                           const SequenceState* state, bool backward_possible, cudaStream_t stream);
// The bytes of launch_target_removal's d_cores: the two core maps and their blocks' flags.
std::size_t target_removal_bytes(int width, int height);

}  // namespace gausslab::seq
