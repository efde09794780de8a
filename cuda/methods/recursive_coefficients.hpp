#pragma once
// Host side of the recursive Gaussian: Deriche's 4th-order coefficients in double, the plan of one
// 1D pass (segment geometry, carry powers, closed-form border histories), the truncation loss
// of the reference that the recursive filter cannot reproduce, and the accuracy bound.
//
// Deriche 1993, in the constants and notation of Getreuer, "A Survey of Gaussian Convolution
// Algorithms", IPOL 2013, section on Deriche's method: the causal part of the Gaussian is
//   h+[n] = 1/(sigma sqrt(2 pi)) sum_{k=1..4} alpha_k exp(-lambda_k n / sigma),  n >= 0,
// with alpha = {0.84 ± 1.8675i, -0.34015 ∓ 0.1299i}, lambda = {1.783 ± 0.6318i, 1.723 ± 1.997i}, and
// the whole filter is h[n] = h+[|n|]. Taking one pole of each conjugate pair,
//   h[n] = Re sum_{j=1,2} weight_j p_j^|n|,  p_j = exp(-lambda_j / sigma),  weight_j = 2 alpha_j / (sigma sqrt(2 pi)),
// and the weights are divided by the DC gain sum_j Re(weight_j (1 + p_j) / (1 - p_j)) so that a flat
// field stays exactly flat (the raw gain is 1.00013 at sigma 5).
#include <complex>
#include <cstddef>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "recursive_model.hpp"

namespace gausslab::recursive {

// Deriche's Gaussian for one sigma: two complex poles, their weights, the centre tap.
struct DericheGaussian {
  double sigma = 0;
  std::complex<double> log_pole[kPoles];  // -lambda_j / sigma: p_j^n = exp(n log_pole_j) for any n
  std::complex<double> pole[kPoles];
  std::complex<double> weight[kPoles];  // normalised: the filter's DC gain is 1
  double centre = 0;                    // h[0] = Re sum_j weight_j
  double raw_dc_gain = 0;               // the gain before normalisation (1.00013 at sigma 5)
};

DericheGaussian deriche_gaussian(double sigma);

// The impulse response h[n] = Re sum_j weight_j p_j^|n| (symmetric, sums to 1 over all n).
double impulse_response(const DericheGaussian& gaussian, int n);

// The same filter as Getreuer's direct form (for tests against published numbers):
//   y+[n] = sum_{k=0..3} b_causal[k] x[n-k] - sum_{k=1..4} a[k] y+[n-k]
//   y-[n] = sum_{k=1..4} b_anticausal[k] x[n+k] - sum_{k=1..4} a[k] y-[n+k],  y = y+ + y-,
// a[0] = 1, b_anticausal[0] = 0. `normalised` divides the numerators by the raw DC gain.
struct DirectForm {
  double b_causal[4];
  double a[5];
  double b_anticausal[5];
};
DirectForm deriche_direct_form(double sigma, bool normalised);

// Segment length L for a pass over `columns` columns of `length` samples: the smallest power of
// two in [32, 65536] that keeps columns * ceil(length / L) at or below about 131072 threads
// (a full H100 holds 270 k resident threads; more segments only add carry traffic).
int choose_segment_length(int columns, int length);

// Everything one 1D pass needs, passed to the kernels by value (no upload, so two instances with
// different sigmas can share a stream). Throws std::invalid_argument for a size below 1 or L < 1.
PassPlan plan_pass(const DericheGaussian& gaussian, int columns, int length, BorderMode border, int segment_length);

// Both passes of one image and the float scratch they share. The first pass filters the W columns
// (H samples each) of the image into scratch A (H rows); A is transposed into scratch B (W rows);
// the second pass filters B's H columns (the image's rows) back into A, now W rows of H; the last
// transpose writes A into the destination in its own pixel format.
struct ImagePlan {
  PassPlan columns;                  // W columns of H samples
  PassPlan rows;                     // H columns of W samples (the transposed image)
  int pitch_elements_columns = 0;    // scratch row length in the first pass's layout: W padded
  int pitch_elements_rows = 0;       // in the second pass's layout: H padded
  std::size_t scratch_elements = 0;  // per scratch image: the larger of the two layouts
};
// forced_segment_length > 0 replaces choose_segment_length (tests cut columns into many segments).
ImagePlan plan_image(int width, int height, double sigma, BorderMode border, int forced_segment_length = 0);

// The share of the sampled Gaussian's mass that the reference drops by truncating at `radius`:
// sum_{|k| > radius} g(k) / sum_k g(k). The recursive filter keeps that tail, so its result differs
// from the reference by up to about twice this per pass, on top of its own approximation error.
double truncation_loss(double sigma, int radius);

// The bound recursive and recursive_tiled promise for these parameters: per sigma range at truncate 4
// (the table in recursive_coefficients.cpp), plus what a shorter truncate drops from the reference.
AccuracyBound recursive_bound(const FilterParams& params);
// The widest of the ranges' bounds (at truncate 4): what MethodInfo promises for every sigma.
AccuracyBound widest_recursive_bound();

}  // namespace gausslab::recursive
