#include "multires_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "gausslab/core/gaussian_weights.hpp"

namespace gausslab::multires {

namespace {

// The cubic B-spline (support [-2, 2], sum over integer shifts 1, variance 1/3).
double cubic_bspline(double t) {
  t = std::fabs(t);
  if (t < 1.0) return 2.0 / 3.0 - t * t + 0.5 * t * t * t;
  if (t < 2.0) return (2.0 - t) * (2.0 - t) * (2.0 - t) / 6.0;
  return 0.0;
}

// exp(-(x - centre)^2 / (2 sigma^2)) at x = first .. first + count - 1, normalised to sum 1.
std::vector<double> sampled_gaussian(double sigma, double centre, int first, int count) {
  std::vector<double> w(static_cast<std::size_t>(count));
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    const double x = (first + i - centre) / sigma;
    w[static_cast<std::size_t>(i)] = std::exp(-0.5 * x * x);
    sum += w[static_cast<std::size_t>(i)];
  }
  for (double& v : w) v /= sum;
  return w;
}

}  // namespace

int decimation_for(double sigma, double sigma_per_step) {
  return std::max(2, static_cast<int>(std::floor(sigma / sigma_per_step)));
}

AxisGrid make_axis(const Plan& plan, int fine) {
  AxisGrid axis;
  axis.fine = fine;
  axis.b_first = -2;
  axis.b_count = (fine - 1) / plan.d + kExpandTaps;
  axis.c_first = axis.b_first - plan.radius2;
  axis.c_count = axis.b_count + 2 * plan.radius2;
  axis.fine_origin = plan.d * axis.c_first + plan.first_tap;
  return axis;
}

Plan make_plan(double sigma, int width, int height, double sigma_per_step) {
  if (!(sigma >= kMinSigma)) throw std::invalid_argument("multires plan: sigma below 4");
  Plan plan;
  plan.sigma = sigma;
  plan.d = decimation_for(sigma, sigma_per_step);
  const double d = plan.d;
  const double centre = (d - 1.0) / 2.0;  // of coarse sample 0, in fine pixels
  plan.sigma1 = kPrefilterPerStep * d;
  plan.first_tap = static_cast<int>(std::ceil(centre - kStageTruncate * plan.sigma1));
  const int last_tap = static_cast<int>(std::floor(centre + kStageTruncate * plan.sigma1));
  plan.prefilter = sampled_gaussian(plan.sigma1, centre, plan.first_tap, last_tap - plan.first_tap + 1);

  const double blur_variance = sigma * sigma - plan.sigma1 * plan.sigma1 - d * d / 3.0;  // fine px^2
  plan.sigma2 = std::sqrt(blur_variance) / d;
  plan.radius2 = static_cast<int>(std::floor(kStageTruncate * plan.sigma2));
  plan.blur = sampled_gaussian(plan.sigma2, 0.0, -plan.radius2, 2 * plan.radius2 + 1);

  // Fine pixel d q + p sits at t = (p - centre) / d in (-1/2, 1/2) from coarse sample q; the spline
  // reads coarse samples floor(t) - 1 .. floor(t) + 2, which are B[q + floor(t) + 1 + a] (b_first -2).
  plan.expand.resize(static_cast<std::size_t>(plan.d));
  for (int p = 0; p < plan.d; ++p) {
    const double t = (p - centre) / d;
    const int floor_t = t < 0 ? -1 : 0;
    const double frac = t - floor_t;
    const double spline[4] = {cubic_bspline(frac + 1), cubic_bspline(frac), cubic_bspline(1 - frac),
                              cubic_bspline(2 - frac)};
    auto& row = plan.expand[static_cast<std::size_t>(p)];
    row.fill(0.0);
    for (int a = 0; a < 4; ++a) row[static_cast<std::size_t>(floor_t + 1 + a)] = spline[a];
  }
  plan.x = make_axis(plan, width);
  plan.y = make_axis(plan, height);
  return plan;
}

int taps_in_phase(int taps, int d, int p) { return p < taps ? (taps - p + d - 1) / d : 0; }

std::vector<double> prefilter_by_phase(const Plan& plan) {
  std::vector<double> out;
  const int taps = static_cast<int>(plan.prefilter.size());
  for (int p = 0; p < plan.d; ++p)
    for (int t = p; t < taps; t += plan.d) out.push_back(plan.prefilter[static_cast<std::size_t>(t)]);
  return out;
}

std::vector<PhaseKernel> phase_kernels(const Plan& plan) {
  // Output d q + p with q = 0 reads B[k] (k < 5) = sum_m blur[m] C[k + m] on the axis whose C starts
  // at coarse sample -2 - radius2; C[c] reads fine d (c - 2 - radius2) + first_tap + t.
  const int coarse_taps = kExpandTaps + 2 * plan.radius2;  // j = k + m
  const int taps1 = static_cast<int>(plan.prefilter.size());
  std::vector<PhaseKernel> kernels(static_cast<std::size_t>(plan.d));
  for (int p = 0; p < plan.d; ++p) {
    std::vector<double> coarse(static_cast<std::size_t>(coarse_taps), 0.0);
    for (int k = 0; k < kExpandTaps; ++k)
      for (int m = 0; m <= 2 * plan.radius2; ++m)
        coarse[static_cast<std::size_t>(k + m)] +=
            plan.expand[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)] * plan.blur[static_cast<std::size_t>(m)];
    PhaseKernel& kernel = kernels[static_cast<std::size_t>(p)];
    kernel.first = plan.d * (-2 - plan.radius2) + plan.first_tap - p;
    kernel.weights.assign(static_cast<std::size_t>(plan.d * (coarse_taps - 1) + taps1), 0.0);
    for (int j = 0; j < coarse_taps; ++j)
      for (int t = 0; t < taps1; ++t)
        kernel.weights[static_cast<std::size_t>(plan.d * j + t)] +=
            coarse[static_cast<std::size_t>(j)] * plan.prefilter[static_cast<std::size_t>(t)];
  }
  return kernels;
}

OperatorError operator_error(double sigma, double truncate, bool exact_2d, double sigma_per_step) {
  const Plan plan = make_plan(sigma, 1, 1, sigma_per_step);
  const std::vector<PhaseKernel> kernels = phase_kernels(plan);
  const int radius = gaussian_radius(sigma, truncate);
  const std::vector<double> reference = gaussian_weights(sigma, radius);
  // Both kernels of each phase on one common range of offsets.
  struct Aligned {
    std::vector<double> mine, ref;
  };
  std::vector<Aligned> aligned;
  OperatorError error;
  for (const PhaseKernel& kernel : kernels) {
    const int first = std::min(kernel.first, -radius);
    const int last = std::max(kernel.first + static_cast<int>(kernel.weights.size()) - 1, radius);
    Aligned a;
    a.mine.assign(static_cast<std::size_t>(last - first + 1), 0.0);
    a.ref.assign(a.mine.size(), 0.0);
    for (std::size_t i = 0; i < kernel.weights.size(); ++i)
      a.mine[static_cast<std::size_t>(kernel.first - first) + i] = kernel.weights[i];
    for (int i = -radius; i <= radius; ++i)
      a.ref[static_cast<std::size_t>(i - first)] = reference[static_cast<std::size_t>(i + radius)];
    double l1 = 0;
    for (std::size_t i = 0; i < a.mine.size(); ++i) l1 += std::fabs(a.mine[i] - a.ref[i]);
    error.l1_1d = std::max(error.l1_1d, l1);
    aligned.push_back(std::move(a));
  }
  const double peak = reference[static_cast<std::size_t>(radius)] * reference[static_cast<std::size_t>(radius)];
  std::vector<std::size_t> phases;
  if (exact_2d) {
    for (std::size_t p = 0; p < aligned.size(); ++p) phases.push_back(p);
  } else {
    phases = {0, aligned.size() / 2, aligned.size() - 1};
    error.l1_2d = 2.0 * error.l1_1d;
  }
  for (std::size_t a : phases)
    for (std::size_t b : phases) {
      const Aligned& u = aligned[a];
      const Aligned& v = aligned[b];
      double l1 = 0;
      for (std::size_t i = 0; i < u.mine.size(); ++i)
        for (std::size_t j = 0; j < v.mine.size(); ++j) {
          const double diff = std::fabs(u.mine[i] * v.mine[j] - u.ref[i] * v.ref[j]);
          l1 += diff;
          error.peak_2d = std::max(error.peak_2d, diff / peak);
        }
      if (exact_2d) error.l1_2d = std::max(error.l1_2d, l1);
    }
  return error;
}

}  // namespace gausslab::multires
