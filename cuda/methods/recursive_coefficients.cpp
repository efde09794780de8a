#include "recursive_coefficients.hpp"

#include "gausslab/core/gaussian_weights.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace gausslab::recursive {

namespace {

// ---- accuracy bounds -------------------------------------------------------------------------
// Per sigma range, truncate 4. 8-bit: 0.5 level of to_unorm8 rounding plus 255 × the largest 2D
// operator error ||h⊗h - r⊗r||_1 of the range (scanned at 60 sigmas per range, rounded up): a
// bound for every image, not only the measured ones. F32: the largest relative error measured on
// the images of the table in recursive.cu's header (1.2e-3), and the single-impulse error (1.06e-3),
// with a margin; it assumes non-negative images (a signed high-frequency image has a near-zero
// reference, and any relative error can be made large there).
struct RangeBound {
  double sigma_below;  // the range is [previous sigma_below, sigma_below)
  double max_relative_error;
  double max_error_8bit;
};
constexpr RangeBound kBounds[] = {
    {0.5, 1.5e-3, 0.95},   // op-err 1.65e-3 at sigma 0.35
    {1.0, 1.5e-3, 0.92},   // 1.52e-3 at 0.5
    {2.0, 1.5e-3, 0.85},   // 1.28e-3 at 1
    {8.0, 2.0e-3, 0.80},   // 1.08e-3 at 2.1
    {32.0, 2.0e-3, 0.80},  // 1.04e-3 at 9.6
    {1e30, 2.0e-3, 0.80},  // 1.01e-3 at 42
};

using cplx = std::complex<double>;

// Deriche's constants (one of each conjugate pair), as tabulated by Getreuer.
const cplx kAlpha[kPoles] = {{0.84, 1.8675}, {-0.34015, -0.1299}};
const cplx kLambda[kPoles] = {{1.783, 0.6318}, {1.723, 1.997}};

constexpr double kSqrtTwoPi = 2.5066282746310002;

Complex<double> to_plan(cplx z) { return {z.real(), z.imag()}; }
Complex<float> to_plan_f(cplx z) { return {static_cast<float>(z.real()), static_cast<float>(z.imag())}; }

// p^n for any n >= 0, exactly from the logarithm (no repeated multiplication).
cplx pole_power(const DericheGaussian& g, int j, long long n) {
  return std::exp(static_cast<double>(n) * g.log_pole[j]);
}

// Coefficients of the border's history p * u[-1] fed into the first causal sample (see
// PolePlan): u[-1] = sum_{m >= 0} p^m xe[-1 - m] summed in closed form over the periodic (or
// constant) extension xe, with F = sum_k p^k x[k] and B = sum_k p^(N-1-k) x[k].
//  reflect  (period 2N, xe[-1-m] = x[m] then x[2N-1-m]):   p u[-1] = p (F + p^N B) / (1 - p^2N)
//  mirror   (period 2N-2, xe[-1-m] = x[1+m] then x[2N-3-m]):
//           p u[-1] = ((F - x[0]) + p^(N-1) (B - x[N-1])) / (1 - p^(2N-2))       (N >= 2)
//           (the division by p that u[-1] itself would need cancels against the factor p)
//  nearest  (xe = x[0]):                                    p u[-1] = p x[0] / (1 - p)
//  wrap     (period N, xe[-1-m] = x[N-1-m]):                p u[-1] = p B / (1 - p^N)
//  constant (xe = 0):                                       0
void set_border_history(const DericheGaussian& g, int j, int n, BorderMode border, PolePlan& plan) {
  const cplx p = g.pole[j];
  cplx near_sum = 0, far_sum = 0, near_sample = 0, far_sample = 0;
  switch (border) {
    case BorderMode::Reflect: {
      const cplx denominator = 1.0 - pole_power(g, j, 2LL * n);
      near_sum = p / denominator;
      far_sum = pole_power(g, j, n + 1LL) / denominator;
      break;
    }
    case BorderMode::Mirror:
      if (n == 1) {  // the extension is x[0] everywhere
        near_sample = p / (1.0 - p);
      } else {
        const cplx denominator = 1.0 - pole_power(g, j, 2LL * n - 2);
        const cplx far = pole_power(g, j, n - 1LL) / denominator;
        near_sum = 1.0 / denominator;
        near_sample = -1.0 / denominator;
        far_sum = far;
        far_sample = -far;
      }
      break;
    case BorderMode::Nearest:
      near_sample = p / (1.0 - p);
      break;
    case BorderMode::Wrap:
      far_sum = p / (1.0 - pole_power(g, j, n));
      break;
    default:  // Constant: zero history
      break;
  }
  plan.init_near_sum = to_plan(near_sum);
  plan.init_far_sum = to_plan(far_sum);
  plan.init_near_sample = to_plan(near_sample);
  plan.init_far_sample = to_plan(far_sample);
}

}  // namespace

DericheGaussian deriche_gaussian(double sigma) {
  if (!(sigma > 0) || !std::isfinite(sigma)) throw std::invalid_argument("deriche_gaussian: sigma must be positive");
  DericheGaussian g;
  g.sigma = sigma;
  double dc = 0;
  for (int j = 0; j < kPoles; ++j) {
    g.log_pole[j] = -kLambda[j] / sigma;
    g.pole[j] = std::exp(g.log_pole[j]);
    g.weight[j] = 2.0 * kAlpha[j] / (sigma * kSqrtTwoPi);
    dc += (g.weight[j] * (1.0 + g.pole[j]) / (1.0 - g.pole[j])).real();
  }
  g.raw_dc_gain = dc;
  g.centre = 0;
  for (int j = 0; j < kPoles; ++j) {
    g.weight[j] /= dc;
    g.centre += g.weight[j].real();
  }
  return g;
}

double impulse_response(const DericheGaussian& g, int n) {
  const long long distance = n < 0 ? -static_cast<long long>(n) : n;
  double h = 0;
  for (int j = 0; j < kPoles; ++j) h += (g.weight[j] * pole_power(g, j, distance)).real();
  return h;
}

DirectForm deriche_direct_form(double sigma, bool normalised) {
  const DericheGaussian g = deriche_gaussian(sigma);
  // All four poles and their (un-doubled, un-normalised) causal weights alpha_k / (sigma sqrt(2 pi)).
  cplx poles[4], weights[4];
  for (int j = 0; j < kPoles; ++j) {
    const cplx w = kAlpha[j] / (sigma * kSqrtTwoPi);
    poles[2 * j] = g.pole[j];
    poles[2 * j + 1] = std::conj(g.pole[j]);
    weights[2 * j] = w;
    weights[2 * j + 1] = std::conj(w);
  }
  // Denominator prod_k (1 - p_k z^-1) and numerator sum_k w_k prod_{i != k} (1 - p_i z^-1).
  cplx denominator[5] = {1, 0, 0, 0, 0};
  for (int k = 0; k < 4; ++k)
    for (int i = k + 1; i >= 1; --i) denominator[i] -= poles[k] * denominator[i - 1];
  cplx numerator[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    cplx product[4] = {1, 0, 0, 0};
    int degree = 0;
    for (int i = 0; i < 4; ++i) {
      if (i == k) continue;
      ++degree;
      for (int d = degree; d >= 1; --d) product[d] -= poles[i] * product[d - 1];
    }
    for (int d = 0; d < 4; ++d) numerator[d] += weights[k] * product[d];
  }
  const double scale = normalised ? 1.0 / g.raw_dc_gain : 1.0;
  DirectForm form{};
  for (int k = 0; k < 5; ++k) form.a[k] = denominator[k].real();
  for (int k = 0; k < 4; ++k) form.b_causal[k] = numerator[k].real() * scale;
  form.b_anticausal[0] = 0;
  for (int k = 1; k < 4; ++k) form.b_anticausal[k] = form.b_causal[k] - form.a[k] * form.b_causal[0];
  form.b_anticausal[4] = -form.a[4] * form.b_causal[0];
  return form;
}

int choose_segment_length(int columns, int length) {
  constexpr long long kTargetThreads = 1LL << 17;
  int segment_length = 32;
  while (segment_length < 65536) {
    const long long segments = (static_cast<long long>(length) + segment_length - 1) / segment_length;
    if (static_cast<long long>(columns) * segments <= kTargetThreads) break;
    segment_length *= 2;
  }
  return segment_length;
}

PassPlan plan_pass(const DericheGaussian& g, int columns, int length, BorderMode border, int segment_length) {
  if (columns < 1 || length < 1 || segment_length < 1)
    throw std::invalid_argument("plan_pass: columns, length and segment length must be at least 1");
  PassPlan plan;
  plan.columns = columns;
  plan.length = length;
  plan.segment_length = segment_length;
  plan.segments = static_cast<int>((static_cast<long long>(length) + segment_length - 1) / segment_length);
  plan.last_length = length - (plan.segments - 1) * segment_length;

  // The float variant renormalises for its rounded poles, so that it too keeps flat fields flat.
  double dc_float = 0;
  for (int j = 0; j < kPoles; ++j) {
    const Complex<float> rounded = to_plan_f(g.pole[j]);
    const cplx pole_f(rounded.re, rounded.im);
    dc_float += (g.weight[j] * (1.0 + pole_f) / (1.0 - pole_f)).real();
  }
  plan.centre = g.centre;
  double centre_f = 0;
  for (int j = 0; j < kPoles; ++j) {
    PolePlan& pole = plan.poles[j];
    pole.pole = to_plan(g.pole[j]);
    pole.weight = to_plan(g.weight[j]);
    pole.pole_f = to_plan_f(g.pole[j]);
    pole.weight_f = to_plan_f(g.weight[j] / dc_float);
    centre_f += pole.weight_f.re;
    pole.pow_segment = to_plan(pole_power(g, j, segment_length));
    pole.pow_segment_minus_1 = to_plan(pole_power(g, j, segment_length - 1LL));
    pole.pow_last = to_plan(pole_power(g, j, plan.last_length));
    pole.pow_last_minus_1 = to_plan(pole_power(g, j, plan.last_length - 1LL));
    set_border_history(g, j, length, border, pole);
  }
  plan.centre_f = static_cast<float>(centre_f);
  return plan;
}

ImagePlan plan_image(int width, int height, double sigma, BorderMode border, int forced_segment_length) {
  const DericheGaussian gaussian = deriche_gaussian(sigma);
  auto segment_length = [&](int columns, int length) {
    return forced_segment_length > 0 ? forced_segment_length : choose_segment_length(columns, length);
  };
  ImagePlan plan;
  plan.columns = plan_pass(gaussian, width, height, border, segment_length(width, height));
  plan.rows = plan_pass(gaussian, height, width, border, segment_length(height, width));
  plan.pitch_elements_columns = padded_row_elements(width);
  plan.pitch_elements_rows = padded_row_elements(height);
  plan.scratch_elements = std::max(static_cast<std::size_t>(height) * plan.pitch_elements_columns,
                                   static_cast<std::size_t>(width) * plan.pitch_elements_rows);
  return plan;
}

double truncation_loss(double sigma, int radius) {
  if (!(sigma > 0) || radius < 0) throw std::invalid_argument("truncation_loss: sigma must be > 0, radius >= 0");
  // Terms beyond 40 sigma are below exp(-800): nothing in double.
  const double inverse_two_variance = -0.5 / (sigma * sigma);
  const long long end = static_cast<long long>(radius) + static_cast<long long>(std::ceil(40.0 * sigma)) + 1;
  double inside = 1.0, outside = 0.0;  // k = 0 counted once
  for (long long k = 1; k <= end; ++k) {
    const double term = 2.0 * std::exp(inverse_two_variance * static_cast<double>(k) * static_cast<double>(k));
    (k <= radius ? inside : outside) += term;
  }
  return outside / (inside + outside);
}

AccuracyBound recursive_bound(const FilterParams& params) {
  if (!validate(params).empty()) return {kBounds[0].max_relative_error, kBounds[0].max_error_8bit};  // refused anyway
  const RangeBound* range = &kBounds[0];
  while (params.sigma >= range->sigma_below && range + 1 != std::end(kBounds)) ++range;
  // The table holds for truncate 4; a shorter reference drops more of the tail that the
  // recursive filter keeps: up to twice the extra loss per pass, two passes.
  const double loss = truncation_loss(params.sigma, params.radius());
  const double loss_at_4 = truncation_loss(params.sigma, gaussian_radius(params.sigma, kDefaultTruncate));
  const double extra = 4.0 * std::max(0.0, loss - loss_at_4);
  return {range->max_relative_error + extra, range->max_error_8bit + 255.0 * extra};
}

AccuracyBound widest_recursive_bound() {
  AccuracyBound widest{0.0, 0.0};
  for (const RangeBound& range : kBounds) {
    widest.max_relative_error = std::max(widest.max_relative_error, range.max_relative_error);
    widest.max_error_8bit = std::max(widest.max_error_8bit, range.max_error_8bit);
  }
  return widest;
}

}  // namespace gausslab::recursive
