#pragma once
// Whether a frame belongs to the sequence, written once for the CPU engine and the CUDA kernels
// (docs/sequence.md, "Frames that do not belong"). A frame is left out of the history when its
// shift search fails (no significant coarse match, or a fine step beyond a pixel) or when its
// whitened residual is far above the history's. A frame that fails against the reference but
// whose successor matches it is a scene cut: it becomes the reference of a new segment and the
// history starts again from it. Everything here is small and serial (one GPU thread runs it), on
// a state that lives with the engine (device memory on the GPU), so no frame waits for the host.
#include <cstring>

#include "gausslab/core/sequence_coarse.hpp"
#include "gausslab/core/sequence_maths.hpp"

namespace gausslab::seq {

inline constexpr double kDefaultMaxResidual = 3.0;  // --max-residual: × the history's robust deviation
inline constexpr double kDefaultTargetThreshold = 5.0;  // --target-threshold: removed above 5 deviations ...
inline constexpr int kReliefRadius = 2;             // ... and above a quarter of the prediction's relief ...
inline constexpr float kReliefFraction = 0.25f;     //     over the 5×5 around ...
inline constexpr int kMaskGrowth = 3;               // ... and 3 px around (a bright target's wings)
inline constexpr double kTailDeviations = 5.0;      // the tail: |w| beyond 5 × the frame's robust deviation ...
inline constexpr double kMaxTailFraction = 0.005;   // ... in more than 0.5 % of the pixels ...
inline constexpr double kTailGrowth = 10.0;         // ... and 10 × the history's tail: a frame rejected
inline constexpr double kRobustScale = 1.4826;      // median |w| → standard deviation, for Gaussian noise

// ---- the whitened residual's statistics ----------------------------------------------------------

// A histogram of |w| with kResidualSubBins bins per octave from 2^kResidualLowOctave to
// 2^(kResidualLowOctave + kResidualOctaves): bin 0 holds the smaller values (and zeros), the last
// bin the larger. The bin comes from the float's bits (exponent and first mantissa bits), so the
// CPU and the GPU bin a value alike; counts are integers, so their order of addition is free.
inline constexpr int kResidualLowOctave = -24;
inline constexpr int kResidualOctaves = 32;
inline constexpr int kResidualSubBins = 8;
inline constexpr int kResidualBins = kResidualOctaves * kResidualSubBins + 2;

GAUSSLAB_HD unsigned float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  unsigned u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

GAUSSLAB_HD int residual_bin(float value) {
  const unsigned bits = float_bits(value) & 0x7fffffffu;
  const int exponent = static_cast<int>(bits >> 23) - 127;
  if (exponent < kResidualLowOctave) return 0;
  if (exponent >= kResidualLowOctave + kResidualOctaves) return kResidualBins - 1;
  return 1 + (exponent - kResidualLowOctave) * kResidualSubBins + static_cast<int>((bits >> 20) & 7u);
}

// 2^e for a normal double's exponent, from its bits (exact, and cheap on the GPU, unlike ldexp).
GAUSSLAB_HD double power_of_two(int e) {
  const unsigned long long bits = static_cast<unsigned long long>(e + 1023) << 52;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double d = 0.0;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

// The values bin b holds: [lower, lower + width) (the last bin: from its lower edge up).
GAUSSLAB_HD void residual_bin_edges(int b, double& lower, double& width) {
  lower = 0.0;
  width = power_of_two(kResidualLowOctave);
  if (b == 0) return;
  const int octave = (b - 1) / kResidualSubBins, sub = (b - 1) % kResidualSubBins;
  const double base = power_of_two(kResidualLowOctave + octave);
  width = base / kResidualSubBins;
  lower = base + sub * width;
}

// The median of |w| from the histogram, interpolated linearly inside its bin.
GAUSSLAB_HD double histogram_median(const unsigned* histogram, unsigned long long count) {
  const double half = 0.5 * static_cast<double>(count);
  double below = 0.0;
  for (int b = 0; b < kResidualBins; ++b) {
    const double n = histogram[b];
    if (n > 0.0 && below + n >= half) {
      double lower = 0.0, width = 0.0;
      residual_bin_edges(b, lower, width);
      return b == kResidualBins - 1 ? lower : lower + (half - below) / n * width;
    }
    below += n;
  }
  return 0.0;
}

// The fraction of |w| above `limit`, from the histogram (the bin that holds the limit counted in
// proportion).
GAUSSLAB_HD double histogram_tail(const unsigned* histogram, unsigned long long count, double limit) {
  if (count == 0) return 0.0;
  double above = 0.0;
  for (int b = 0; b < kResidualBins; ++b) {
    double lower = 0.0, width = 0.0;
    residual_bin_edges(b, lower, width);
    if (b == kResidualBins - 1 || lower >= limit) above += histogram[b];
    else if (lower + width > limit) above += histogram[b] * (lower + width - limit) / width;
  }
  return above / static_cast<double>(count);
}

// The statistics take every step-th row (at most about a million pixels a frame) ...
GAUSSLAB_HD int stats_row_step(int width, int height) {
  return 1 + static_cast<int>(static_cast<long long>(width) * height / (1 << 20));
}
// ... of the region where every history frame reads inside (the whole frame when that region is
// less than a sixteenth of it: shifts nearly as large as the frame).
GAUSSLAB_HD Region stats_region(const WhiteningWeights& w, int width, int height) {
  Region r{w.x0, w.y0, w.x1, w.y1};
  if (r.count() * 16 < static_cast<long long>(width) * height) r = Region{0, 0, width, height};
  return r;
}
GAUSSLAB_HD bool stats_pixel(const Region& r, int step, int x, int y) {
  return x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1 && (y - r.y0) % step == 0;
}

// What the statistics of one whitened frame collect.
struct ResidualStats {
  unsigned histogram[kResidualBins];
  unsigned long long count;  // pixels sampled
};

// The frame's robust deviation (kRobustScale × the median |w|) and its tail (the fraction beyond
// kTailDeviations × that deviation: stars of another scene stand out of the noise there).
GAUSSLAB_HD double residual_deviation(const ResidualStats& s) {
  return kRobustScale * histogram_median(s.histogram, s.count);
}
GAUSSLAB_HD double residual_tail(const ResidualStats& s, double deviation) {
  return histogram_tail(s.histogram, s.count, kTailDeviations * deviation);
}

// ---- the engine's state ------------------------------------------------------------------------

struct SequenceState {
  int next_frame = 0;        // engine index of the frame being processed
  int segment = -1;          // the current segment (-1: no reference yet)
  int segment_start = -1;    // engine index of its reference
  int segment_slot = -1;     // its ring slot
  int previous_failed = 0;   // the previous frame did not match (or was rejected): it may start a segment
  int residual_count = 0;    // accepted frames' residuals kept (the last kMaxHistory)
  int residual_next = 0;
  float residuals[kMaxHistory] = {};
  float tails[kMaxHistory] = {};
  // This frame's, set as it goes through the steps:
  int cut = 0;               // it matched the previous frame: a cut at the previous frame
  int offset_x = 0, offset_y = 0;  // the integer search's result
  int flags = 0;
  float significance = 0;    // of the match used
  int matched = 0;
  float history_residual = 0;  // the history's robust deviation before this frame (0: none yet)
  float history_tail = 0;
  float removal_threshold = 0;  // this frame's targets above it are replaced (0: none)
  float backward_threshold = 0;
  int median = 0;            // the frame's replaced pixels take median_prediction
  int keep = 0;              // the whitened frame is kept (whitened_output)
};

// A frame failed the way a cut's first frame does: it did not match (or was rejected).
GAUSSLAB_HD bool can_start_segment(int status) {
  return status == static_cast<int>(ShiftStatus::NoMatch) || status == static_cast<int>(ShiftStatus::Rejected);
}

// The median of the first n values (n ≤ kMaxHistory), by insertion sort.
GAUSSLAB_HD float median_of(const float* values, int n) {
  if (n <= 0) return 0.0f;
  float v[kMaxHistory] = {};
  for (int i = 0; i < n; ++i) {
    float x = values[i];
    int j = i;
    for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
    v[j] = x;
  }
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

// Starts a segment whose reference is `reference` (its record becomes the segment's reference).
GAUSSLAB_HD void begin_segment(SequenceState& s, ShiftRecord& reference, int slot) {
  ++s.segment;
  s.segment_start = reference.frame;
  s.segment_slot = slot;
  s.residual_count = 0;
  s.residual_next = 0;
  reference.status = static_cast<int>(ShiftStatus::Reference);
  reference.dx = reference.dy = 0.0;
  reference.kx = reference.ky = 0;
  reference.segment = s.segment;
}

// Before the coarse search's decision: the frame's number, and the history's residual level.
GAUSSLAB_HD void begin_frame(SequenceState& s) {
  s.cut = 0;
  s.flags = 0;
  s.matched = 0;
  s.significance = 0;
  s.offset_x = s.offset_y = 0;
  s.removal_threshold = s.backward_threshold = 0;
  s.median = 0;
  s.keep = 0;
  s.history_residual = median_of(s.residuals, s.residual_count);
  s.history_tail = median_of(s.tails, s.residual_count);
}

// The coarse decision: match the reference; failing that, when the previous frame failed too,
// match the previous frame (a cut). Returns the match whose centre the integer search starts from.
GAUSSLAB_HD CoarseMatch decide_match(SequenceState& s, const CoarseMatch& reference, const CoarseMatch& previous,
                                     bool previous_scored, double min_match) {
  if (reference.significance >= min_match) {
    s.matched = 1;
    s.significance = reference.significance;
    if (reference.at_edge) s.flags |= kFlagCoarseEdge;
    return reference;
  }
  if (previous_scored && s.previous_failed && previous.significance >= min_match) {
    s.matched = 1;
    s.cut = 1;
    s.significance = previous.significance;
    s.flags |= kFlagConfirmsCut | (previous.at_edge ? kFlagCoarseEdge : 0);
    return previous;
  }
  s.flags |= kFlagWeakMatch | (reference.at_edge ? kFlagCoarseEdge : 0);
  s.significance = reference.significance;
  return reference;
}

// The frame's record from its fine step (solve_shift's record) and the decisions so far.
GAUSSLAB_HD void shift_verdict(const SequenceState& s, ShiftRecord& r) {
  r.frame = s.next_frame;
  r.segment = s.segment;
  r.match = s.significance;
  r.flags |= s.flags;
  if (r.status == static_cast<int>(ShiftStatus::Degenerate)) return;
  if (!s.matched) {
    r.status = static_cast<int>(ShiftStatus::NoMatch);
    return;
  }
  const double ex = r.dx - r.kx, ey = r.dy - r.ky;
  if (ex > kMaxFineStep || ex < -kMaxFineStep || ey > kMaxFineStep || ey < -kMaxFineStep) {
    r.status = static_cast<int>(ShiftStatus::NoMatch);
    r.flags |= kFlagNotConverged;
  }
}

// The frame's own residual: rejected when far above the history's, or when too many pixels lie
// far out; otherwise it joins the history's residuals. Returns whether the frame stays.
GAUSSLAB_HD bool residual_verdict(SequenceState& s, ShiftRecord& r, double residual, double tail_fraction,
                                  double max_residual) {
  r.residual = static_cast<float>(residual);
  if (s.residual_count > 0 && s.history_residual > 0.0f) {
    r.residual_ratio = static_cast<float>(residual / s.history_residual);
    r.tail = static_cast<float>(tail_fraction);
    if (residual > max_residual * s.history_residual) r.flags |= kFlagResidualHigh;
    if (tail_fraction > kMaxTailFraction && tail_fraction > kTailGrowth * s.history_tail) r.flags |= kFlagTailHigh;
    if (r.flags & (kFlagResidualHigh | kFlagTailHigh)) {
      r.status = static_cast<int>(ShiftStatus::Rejected);
      return false;
    }
  }
  s.residuals[s.residual_next] = static_cast<float>(residual);
  s.tails[s.residual_next] = static_cast<float>(tail_fraction);
  s.residual_next = (s.residual_next + 1) % kMaxHistory;
  if (s.residual_count < kMaxHistory) ++s.residual_count;
  return true;
}

// Target removal: a pixel near a target is replaced by its prediction before the frame joins the
// history. A pixel is a target's core when its whitened value w stands above the threshold and
// above kReliefFraction of the prediction's relief there (the prediction f - w minus its lowest
// value within kReliefRadius px): a star's interpolation error is a small part of the star (a
// percent with degree 2), while a target stands out of the sky, or of the star it crosses if it is
// bright enough. Pixels within kMaskGrowth px of a core whose w is positive (the target's wings;
// not where the prediction holds an earlier frame's target) are replaced. `frame(x, y)` and
// `whitened(x, y)` read the frame and its whitened values (global memory on the CPU, a tile on the
// GPU), borders clamped.
template <class Frame, class Whitened>
GAUSSLAB_HD bool target_core(const Frame& frame, const Whitened& whitened, int width, int height, int x, int y,
                             float threshold) {
  const float w = whitened(x, y);
  if (!(w > threshold)) return false;
  const float prediction = frame(x, y) - w;
  float lowest = prediction;
  for (int dy = -kReliefRadius; dy <= kReliefRadius; ++dy)
    for (int dx = -kReliefRadius; dx <= kReliefRadius; ++dx) {
      const int xx = x + dx < 0 ? 0 : (x + dx >= width ? width - 1 : x + dx);
      const int yy = y + dy < 0 ? 0 : (y + dy >= height ? height - 1 : y + dy);
      const float p = frame(xx, yy) - whitened(xx, yy);
      lowest = p < lowest ? p : lowest;
    }
  return w > kReliefFraction * (prediction - lowest);
}
// Whether a core lies within kMaskGrowth px of (x, y), from a map of cores (non-zero bytes).
template <class Cores>
GAUSSLAB_HD bool near_core(const Cores& cores, int width, int height, int x, int y) {
  const int x0 = x - kMaskGrowth < 0 ? 0 : x - kMaskGrowth, x1 = x + kMaskGrowth >= width ? width - 1 : x + kMaskGrowth;
  const int y0 = y - kMaskGrowth < 0 ? 0 : y - kMaskGrowth, y1 = y + kMaskGrowth >= height ? height - 1 : y + kMaskGrowth;
  for (int yy = y0; yy <= y1; ++yy)
    for (int xx = x0; xx <= x1; ++xx)
      if (cores(xx, yy)) return true;
  return false;
}

// Whether a frame's replaced pixels take median_prediction (during its segment's fill, while its
// history holds frames whose targets were not removed yet) or its prediction (once the history is
// full: every frame of it was cleaned, and the weighted prediction is the better).
GAUSSLAB_HD bool median_replacement(int frame, int segment_start, int history) { return frame - segment_start < history; }

// The value a replaced pixel takes during the fill: the median of the history's reads at it
// (integer offsets; the frames the weights use, inside their frames), robust to a target that an
// earlier frame still holds there; `fallback` when none reads a value.
GAUSSLAB_HD float median_prediction(const float* const* history, const WhiteningWeights& w, int width, int height,
                                    std::ptrdiff_t stride, int x, int y, float fallback) {
  float v[kMaxHistory];
  int n = 0;
  for (int j = 0; j < w.count; ++j) {
    if (!w.used[j]) continue;
    const int xs = x + w.kx[j], ys = y + w.ky[j];
    if (xs < 0 || ys < 0 || xs >= width || ys >= height) continue;
    const float value = history[j][ys * stride + xs];
    if (!(value == value)) continue;
    int i = n++;
    for (; i > 0 && v[i - 1] > value; --i) v[i] = v[i - 1];
    v[i] = value;
  }
  if (n == 0) return fallback;
  return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

// After every step of the frame.
GAUSSLAB_HD void end_frame(SequenceState& s, const ShiftRecord& r) {
  s.previous_failed = can_start_segment(r.status) ? 1 : 0;
  ++s.next_frame;
}

// The first frames of a segment are predicted from too few frames to tell a target from a star's
// interpolation error; they are not cleaned as they come but backwards, each predicted from the
// frames after it, near the end of the fill, the last of them first (the frames after it are then
// clean already): early frame early - 1 - u at frame segment_start + backward_offset + u, so that
// the first whitened frame reads a history with every target removed. One job a frame.
inline constexpr int kEarlyFrames = 4;
GAUSSLAB_HD int early_frames(int history) {
  const int e = history / 2;
  return e < kEarlyFrames ? e : kEarlyFrames;
}
GAUSSLAB_HD int backward_offset(int history) { return history - early_frames(history); }
// The engine index of the frame cleaned backwards in frame `frame`, or -1. It is at most history
// - 1 frames back, so still in the ring.
GAUSSLAB_HD int backward_target(const SequenceState& s, int frame, int history) {
  const int early = early_frames(history);
  if (early < 1 || s.segment < 0) return -1;
  const int u = frame - s.segment_start - backward_offset(history);
  if (u < 0 || u >= early) return -1;
  return s.segment_start + early - 1 - u;
}
// Whether a frame's targets are removed as it comes (its prediction used enough frames).
GAUSSLAB_HD bool cleaned_as_it_comes(const ShiftRecord& r, int segment_start, int history) {
  return r.frame - segment_start >= early_frames(history);
}

// Whether a frame's whitened output is kept: its segment's history is full and it stays.
GAUSSLAB_HD bool whitened_output(const ShiftRecord& r, int segment_start, int history, bool weights_ok) {
  return weights_ok && r.status == static_cast<int>(ShiftStatus::Estimated) && r.frame - segment_start >= history;
}

}  // namespace gausslab::seq
