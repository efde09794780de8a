#include "gausslab/core/filter_kernel.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gausslab {

FilterKernel FilterKernel::mask(std::vector<double> weights) {
  FilterKernel k;
  k.kind = KernelKind::Mask;
  k.x = std::move(weights);
  return k;
}

FilterKernel FilterKernel::pair(std::vector<double> along_x, std::vector<double> along_y) {
  FilterKernel k;
  k.kind = KernelKind::Pair;
  k.x = std::move(along_x);
  k.y = std::move(along_y);
  return k;
}

FilterKernel FilterKernel::matrix_2d(int width, int height, std::vector<double> rows) {
  FilterKernel k;
  k.kind = KernelKind::Matrix;
  k.matrix_width = width;
  k.matrix_height = height;
  k.matrix = std::move(rows);
  return k;
}

bool operator==(const FilterKernel& a, const FilterKernel& b) {
  if (a.kind != b.kind) return false;
  if (!a.custom()) return true;  // the Gaussian's parameters live in FilterParams
  return a.x == b.x && a.y == b.y && a.matrix_width == b.matrix_width && a.matrix_height == b.matrix_height &&
         a.matrix == b.matrix && a.convolve == b.convolve && a.normalize == b.normalize;
}

const char* to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::Mask:
      return "mask";
    case KernelKind::Pair:
      return "pair";
    case KernelKind::Matrix:
      return "matrix";
    default:
      return "gaussian";
  }
}

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// The first weight that is NaN, infinite or beyond float32's range (the methods' arithmetic), as
// "weight 3 is NaN"; empty when all are usable. `where` names a weight from its index.
template <class Where>
std::string bad_weight(const std::vector<double>& weights, Where where) {
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (std::isnan(w)) return where(i) + " is NaN; every weight must be a finite number";
    if (std::isinf(w)) return where(i) + " is infinite; every weight must be a finite number";
    if (std::fabs(w) > FLT_MAX)
      return where(i) + " is " + number(w) + ", beyond float32's range (±3.4e38) in which the filter computes; scale "
                                             "the kernel down (and --normalize if the scale must not change the result)";
  }
  return {};
}

std::string even_hint() {
  return "; a kernel needs a centre tap: pad it with a 0 (appending one reproduces scipy.ndimage's centre for an even "
         "size, index size/2)";
}

std::string check_mask(const std::vector<double>& weights, const std::string& name) {
  if (weights.empty()) return "the " + name + " is empty; give at least one weight";
  if (weights.size() > static_cast<std::size_t>(kMaxMaskTaps))
    return "the " + name + " has " + std::to_string(weights.size()) + " weights, more than the " +
           std::to_string(kMaxMaskTaps) + " supported";
  if (weights.size() % 2 == 0) return "the " + name + " has " + std::to_string(weights.size()) + " weights, an even count" + even_hint();
  return bad_weight(weights, [&](std::size_t i) { return name + " weight " + std::to_string(i + 1); });
}

double sum_of(const std::vector<double>& weights) { return std::accumulate(weights.begin(), weights.end(), 0.0); }

double absolute_sum(const std::vector<double>& weights) {
  double s = 0.0;
  for (double w : weights) s += std::fabs(w);
  return s;
}

// "" when the weights' sum is far enough from zero to divide by.
std::string check_sum(const std::vector<double>& weights, const std::string& name) {
  const double sum = sum_of(weights);
  if (std::fabs(sum) > kZeroSumTolerance * absolute_sum(weights)) return {};
  const std::string total = absolute_sum(weights) == 0.0 ? "0 (all are zero)"
                            : sum == 0.0                  ? "0"
                                                          : number(sum) + ", zero within rounding";
  return "--normalize divides by the kernel's sum, but the " + name + "'s weights sum to " + total +
         "; leave out --normalize for a kernel that sums to zero (an edge or derivative filter)";
}

std::string describe_weights(const std::vector<double>& weights) {
  if (weights.size() > 9) return std::to_string(weights.size()) + "-tap mask";
  std::string text = "mask ";
  for (std::size_t i = 0; i < weights.size(); ++i) {
    char item[32];
    std::snprintf(item, sizeof item, "%s%g", i ? "," : "", weights[i]);
    text += item;
  }
  return text;
}

long long whole_number(double value) { return static_cast<long long>(value); }

bool is_small_integer(double value) {
  return std::fabs(value) <= static_cast<double>(1 << 24) && value == std::floor(value);
}

// Integer factors of an integer rank-1 matrix, when they exist: the primitive column through the
// pivot (signed so that its pivot entry is positive) and the pivot's row divided by that entry.
std::optional<RankOneFactors> integer_factors(const FilterKernel& k, int pivot_row, int pivot_column) {
  const int w = k.matrix_width, h = k.matrix_height;
  for (double v : k.matrix)
    if (!is_small_integer(v)) return std::nullopt;
  long long divisor = 0;
  for (int j = 0; j < h; ++j) divisor = std::gcd(divisor, std::llabs(whole_number(k.matrix_at(j, pivot_column))));
  if (k.matrix_at(pivot_row, pivot_column) < 0) divisor = -divisor;
  RankOneFactors f;
  f.column.resize(static_cast<std::size_t>(h));
  f.row.resize(static_cast<std::size_t>(w));
  for (int j = 0; j < h; ++j) f.column[j] = static_cast<double>(whole_number(k.matrix_at(j, pivot_column)) / divisor);
  const long long pivot_entry = whole_number(f.column[pivot_row]);
  for (int i = 0; i < w; ++i) {
    const long long entry = whole_number(k.matrix_at(pivot_row, i));
    if (entry % pivot_entry != 0) return std::nullopt;
    f.row[i] = static_cast<double>(entry / pivot_entry);
  }
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i)
      if (f.column[j] * f.row[i] != k.matrix_at(j, i)) return std::nullopt;
  return f;
}

struct Pivot {
  int row = 0, column = 0;
  double magnitude = 0.0;
};

Pivot largest_weight(const FilterKernel& k) {
  Pivot p;
  for (int j = 0; j < k.matrix_height; ++j)
    for (int i = 0; i < k.matrix_width; ++i)
      if (std::fabs(k.matrix_at(j, i)) > p.magnitude) p = {j, i, std::fabs(k.matrix_at(j, i))};
  return p;
}

}  // namespace

std::string validate(const FilterKernel& k) {
  switch (k.kind) {
    case KernelKind::Gaussian:
      return {};
    case KernelKind::Mask:
      if (std::string problem = check_mask(k.x, "mask"); !problem.empty()) return problem;
      return k.normalize ? check_sum(k.x, "mask") : std::string();
    case KernelKind::Pair:
      if (std::string problem = check_mask(k.x, "x mask"); !problem.empty()) return problem;
      if (std::string problem = check_mask(k.y, "y mask"); !problem.empty()) return problem;
      if (!k.normalize) return {};
      if (std::string problem = check_sum(k.x, "x mask"); !problem.empty()) return problem;
      return check_sum(k.y, "y mask");
    case KernelKind::Matrix: {
      const int w = k.matrix_width, h = k.matrix_height;
      if (w < 1 || h < 1 || k.matrix.empty()) return "the 2D kernel is empty; give at least one row of one weight";
      const std::string size = std::to_string(h) + " rows × " + std::to_string(w) + " columns";
      if (k.matrix.size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h))
        return "the 2D kernel of " + size + " holds " + std::to_string(k.matrix.size()) + " weights";
      if (w > kMaxMatrixSide || h > kMaxMatrixSide || static_cast<long long>(w) * h > kMaxMatrixTaps)
        return "the 2D kernel of " + size + " is larger than supported (each side at most " +
               std::to_string(kMaxMatrixSide) + ", " + std::to_string(kMaxMatrixTaps) +
               " weights in all); a separable kernel can be given as --kernel-x and --kernel-y";
      if (w % 2 == 0 || h % 2 == 0) return "the 2D kernel is " + size + ": each side must be odd" + even_hint();
      if (std::string problem = bad_weight(k.matrix,
                                           [&](std::size_t i) {
                                             return "the 2D kernel's weight at row " + std::to_string(i / w + 1) +
                                                    ", column " + std::to_string(i % w + 1);
                                           });
          !problem.empty())
        return problem;
      return k.normalize ? check_sum(k.matrix, "2D kernel") : std::string();
    }
  }
  return "unknown kernel kind";
}

double rank_one_residual(const FilterKernel& k) {
  if (k.kind != KernelKind::Matrix || k.matrix.empty()) return 0.0;
  const Pivot p = largest_weight(k);
  if (p.magnitude == 0.0) return 0.0;
  const double pivot = k.matrix_at(p.row, p.column);
  double residual = 0.0;
  for (int j = 0; j < k.matrix_height; ++j)
    for (int i = 0; i < k.matrix_width; ++i) {
      const double fit = k.matrix_at(j, p.column) * (k.matrix_at(p.row, i) / pivot);
      residual = std::max(residual, std::fabs(k.matrix_at(j, i) - fit));
    }
  return residual / p.magnitude;
}

std::optional<RankOneFactors> rank_one_factors(const FilterKernel& k) {
  if (k.kind != KernelKind::Matrix || !validate(k).empty()) return std::nullopt;
  if (rank_one_residual(k) > kRankOneTolerance) return std::nullopt;
  const Pivot p = largest_weight(k);
  RankOneFactors f;
  f.column.assign(static_cast<std::size_t>(k.matrix_height), 0.0);
  f.row.assign(static_cast<std::size_t>(k.matrix_width), 0.0);
  if (p.magnitude == 0.0) return f;  // all zero: 0 ⊗ 0
  if (std::optional<RankOneFactors> exact = integer_factors(k, p.row, p.column)) return exact;
  // Balanced: both factors' pivot entries sqrt(|pivot|), so neither leaves float32's range first.
  const double pivot = k.matrix_at(p.row, p.column);
  const double scale = std::sqrt(p.magnitude);
  for (int j = 0; j < k.matrix_height; ++j) f.column[j] = k.matrix_at(j, p.column) / scale;
  for (int i = 0; i < k.matrix_width; ++i) f.row[i] = k.matrix_at(p.row, i) / (pivot / scale);
  return f;
}

bool symmetric(const std::vector<double>& w) { return std::equal(w.begin(), w.begin() + w.size() / 2, w.rbegin()); }
bool symmetric(const std::vector<float>& w) { return std::equal(w.begin(), w.begin() + w.size() / 2, w.rbegin()); }

std::string describe(const FilterKernel& k) {
  std::string text;
  switch (k.kind) {
    case KernelKind::Gaussian:
      return "gaussian";
    case KernelKind::Mask:
      text = describe_weights(k.x);
      break;
    case KernelKind::Pair:
      text = "x " + describe_weights(k.x) + " and y " + describe_weights(k.y);
      break;
    case KernelKind::Matrix:
      text = std::to_string(k.matrix_height) + "×" + std::to_string(k.matrix_width) + " matrix" +
             (rank_one_factors(k) ? " (rank 1: run separably)" : "");
      break;
  }
  if (k.convolve) text += ", convolved";
  if (k.normalize) text += ", normalised";
  return text;
}

}  // namespace gausslab
