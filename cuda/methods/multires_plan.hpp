#pragma once
// The maths of the multires method (multires.cu, docs/methods/multires.md), in float64 and plain
// C++ so that the CPU model, the accuracy tests and the GPU launch share one plan.
//
// The Gaussian of sigma is split into three stages whose variances add up to sigma^2:
//   1. reduce:  a Gaussian prefilter of sigma1 = 0.8 d (fine pixels), evaluated only at every d-th
//               position of both axes: the coarse image C (about 1/d^2 of the pixels);
//   2. blur:    a Gaussian of sigma2 (coarse pixels) on C: the image B;
//   3. expand:  B read as the coefficients of a cubic B-spline with knots d fine pixels apart, the
//               spline evaluated at every fine pixel (a smoothing kernel of variance d^2 / 3).
// sigma^2 = sigma1^2 + (d sigma2)^2 + d^2 / 3. The decimation d = max(2, floor(sigma / 2.5)).
// Every stage is separable, normalised and non-negative, so the whole pipeline is, for each output
// position, a non-negative kernel of sum 1 applied to the border-extended input: its difference
// from the reference kernel bounds the error for every input (operator_error below).
#include <array>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"

namespace gausslab::multires {

inline constexpr double kMinSigma = 4.0;           // below, d would be 1: use a FIR method
inline constexpr double kSigmaPerStep = 2.5;       // F32: d = max(2, floor(sigma / 2.5))
// RGBA8 decimates more (σ/d in [2, 3) instead of [2.5, 5)): at σ 8 d 4, where the row reduce runs on
// the tensor cores (H100, 4096²: σ 8 / 12 / 16 0.232 / 0.199 / 0.144 → 0.188 / 0.138 / 0.126 ms).
// The approximation then reaches 0.169 levels (kBoundLevels below); for F32 its impulse error would
// reach 1.2e-3 of the peak, beyond the 1e-3 cap, so F32 keeps 2.5.
inline constexpr double kSigmaPerStepRgba8 = 2.0;
inline constexpr double kPrefilterPerStep = 0.8;   // sigma1 = 0.8 d
inline constexpr double kStageTruncate = 4.0;      // both Gaussian stages are cut at 4 of their sigmas
inline constexpr int kExpandTaps = 5;              // B samples q .. q + 4 around fine pixel d q + p
// RGBA8 keeps C and B as 16-bit integers of 257 × the 8-bit value (so 255 is 65535).
inline constexpr double kCoarseScaleRgba8 = 257.0;

// The decimation for sigma (>= kMinSigma): max(2, floor(sigma / sigma_per_step)).
int decimation_for(double sigma, double sigma_per_step = kSigmaPerStep);
// The rule each format uses.
inline double sigma_per_step_for(PixelFormat format) {
  return format == PixelFormat::Rgba8 ? kSigmaPerStepRgba8 : kSigmaPerStep;
}

// One axis of one image: where C and B sit on the coarse grid. Coarse sample I is centred on fine
// position d I + (d - 1) / 2. Arrays start at index 0; C[c] is coarse sample c_first + c, B[b] is
// b_first + b. B covers the five samples every fine pixel reads, C the blur's reach beyond B.
struct AxisGrid {
  int fine = 0;         // image side
  int b_first = 0;      // -2
  int b_count = 0;      // (fine - 1) / d + 5
  int c_first = 0;      // b_first - radius2
  int c_count = 0;      // b_count + 2 radius2
  int fine_origin = 0;  // fine index of the first prefilter tap of C[0]: d c_first + first_tap
};

// Everything the kernels need, in float64 (cast when uploaded).
struct Plan {
  double sigma = 0;
  int d = 0;
  double sigma1 = 0;  // fine pixels
  double sigma2 = 0;  // coarse pixels
  // Prefilter: C[c] = sum_t prefilter[t] f[d c + fine_origin + t], t < prefilter.size().
  int first_tap = 0;  // ceil(o - 4 sigma1), o = (d - 1) / 2, relative to d I
  std::vector<double> prefilter;
  // Blur: B[b] = sum_m blur[m] C[b + m], m < 2 radius2 + 1.
  int radius2 = 0;
  std::vector<double> blur;
  // Expand: fine pixel x = d q + p reads B[q + k], k < 5, with weight expand[p][k] (four of the five
  // are the cubic B-spline's, one is zero).
  std::vector<std::array<double, kExpandTaps>> expand;
  AxisGrid x, y;
};

// The plan for an image of width × height and this sigma (>= kMinSigma), decimating by
// decimation_for(sigma, sigma_per_step).
Plan make_plan(double sigma, int width, int height, double sigma_per_step = kSigmaPerStep);
AxisGrid make_axis(const Plan& plan, int fine);

// The prefilter in phase order, as the kernels read it: for p = 0 .. d - 1, the taps p, p + d,
// p + 2d, ... (taps_in_phase(p) of them), each phase after the previous one.
std::vector<double> prefilter_by_phase(const Plan& plan);
int taps_in_phase(int taps, int d, int p);

// The pipeline's kernel for fine output p (0 <= p < d: every phase), on fine offsets
// [first, first + weights.size()) from the output pixel. Non-negative, sums to 1.
struct PhaseKernel {
  int first = 0;
  std::vector<double> weights;
};
std::vector<PhaseKernel> phase_kernels(const Plan& plan);

// The exact worst case of the approximation, from the kernels (no rounding): for each phase the
// l1 norm of (pipeline kernel - reference kernel) in 1D, its maximum over phases (l1_1d); in 2D the
// l1 norm of the separable difference, maximised over phase pairs (l1_2d, at most 2 l1_1d); and the
// largest 2D kernel difference relative to the reference's peak (peak_2d: the error of an impulse).
// The reference is the sampled Gaussian cut at floor(truncate sigma + 0.5), as the project's.
// For 8-bit input in [0, 255] the error is at most 127.5 l1_2d levels before rounding (both kernels
// sum to 1). exact_2d = false takes l1_2d = 2 l1_1d and peak_2d from the central phase pairs only
// (fast, for large sigma).
struct OperatorError {
  double l1_1d = 0;
  double l1_2d = 0;
  double peak_2d = 0;
};
OperatorError operator_error(double sigma, double truncate, bool exact_2d, double sigma_per_step = kSigmaPerStep);

// The approximation's worst case for 8-bit input, in levels: 127.5 l1_2d.
inline double approximation_levels(const OperatorError& e) { return 127.5 * e.l1_2d; }

// The stated bound (MultiresBound in tests/cpu/test_multires.cpp checks it against operator_error
// for sigma 4 to 200). RGBA8, proven for every image: the final rounding (0.5), the 16-bit storage
// of C and B (0.5 / 257 each) and float rounding, plus the approximation (at most 0.169 levels with
// RGBA8's decimation, at σ/d = 2 with d >= 3; 0.106 with F32's). F32 (kSigmaPerStep): proven, the error is at most l1_2d / 2 <= 4.2e-4 of the input's range (max - min)
// and a lone impulse's at most 5.2e-4 of the reference's peak; relative to max |reference| the
// worst measured is 6.9e-4 (two impulses whose responses overlap); the bound says 9e-4.
inline constexpr double kRoundingLevels = 0.5 + 2 * 0.5 / kCoarseScaleRgba8 + 0.005;
inline constexpr double kBoundLevels = 0.68;
inline constexpr double kBoundRelative = 9e-4;
inline constexpr AccuracyBound kMultiresBound{kBoundRelative, kBoundLevels};
// The reference cut shorter than this drops more of the Gaussian than the bound leaves room for.
inline constexpr double kMinTruncate = 4.0;

}  // namespace gausslab::multires
