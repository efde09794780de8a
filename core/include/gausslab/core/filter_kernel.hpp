#pragma once
// The kernel a filter applies: the Gaussian of FilterParams (sigma, truncate or radius), or a
// custom one given by its weights, applied exactly as scipy.ndimage.correlate (or convolve) applies
// its `weights` with origin 0:
//   a 1D mask     along x, then along y (one axis only for a signal): correlate1d on each axis;
//   a pair        the x mask along rows, the y mask along columns (a separable 2D kernel);
//   a 2D matrix   out[y][x] = sum_j,i M[j][i] · in[y + j − ry][x + i − rx], rows of M along y.
// Sizes are odd (SciPy centres an even size at index size/2; append a 0 to get that here), the
// weights finite and neither symmetric nor normalised necessarily. `convolve` flips the kernel
// (scipy.ndimage.convolve); `normalize` divides the result by the kernel's sum, once, after the
// sums: with integer weights and integer samples every sum is exact in float32 (below 2^24), and one
// correctly rounded division makes floor and ceil exact too.
//
// A 2D matrix that is the outer product of two vectors (rank 1) within float rounding runs as a
// separable pair (rank_one_factors): the largest-pivot test in float64.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gausslab {

enum class KernelKind : std::uint8_t {
  Gaussian,  // FilterParams' sigma, truncate / radius (the default)
  Mask,      // one 1D mask along each axis
  Pair,      // an x mask and a y mask
  Matrix,    // a 2D matrix
};

// The longest mask: 2 × kMaxRadius + 1, the Gaussian's longest.
inline constexpr int kMaxMaskTaps = 4001;
// A matrix's longest side, and its most taps in all (a 1023 × 1023 matrix; 8 MiB of float64).
inline constexpr int kMaxMatrixSide = 4001;
inline constexpr long long kMaxMatrixTaps = 1LL << 20;
// The rank-1 test's tolerance: every |M[j][i] − u[j] v[i]| at most this × max |M| (one float32 unit
// in the last place of the largest weight, 2^-23): the separable run then differs from the matrix
// by less than rounding the matrix to float32 does. A matrix printed with 6 digits is not rank 1 by
// this test (its outer-product residual is about 1e-6); 9 digits (float32's round trip) are.
inline constexpr double kRankOneTolerance = 1.0 / (1 << 23);
// --normalize refuses a kernel whose sum is within this × the sum of |weights| of zero.
inline constexpr double kZeroSumTolerance = 1e-12;

struct FilterKernel {
  KernelKind kind = KernelKind::Gaussian;
  std::vector<double> x;       // Mask: the mask; Pair: along x (the row pass)
  std::vector<double> y;       // Pair: along y (the column pass)
  int matrix_width = 0;        // Matrix: columns (along x)
  int matrix_height = 0;       // Matrix: rows (along y)
  std::vector<double> matrix;  // Matrix: matrix_height rows of matrix_width weights, top row first
  bool convolve = false;       // flip: scipy.ndimage.convolve instead of correlate
  bool normalize = false;      // divide the result by the kernel's sum

  bool custom() const { return kind != KernelKind::Gaussian; }
  double matrix_at(int row, int column) const { return matrix[static_cast<std::size_t>(row) * matrix_width + column]; }

  static FilterKernel mask(std::vector<double> weights);
  static FilterKernel pair(std::vector<double> along_x, std::vector<double> along_y);
  static FilterKernel matrix_2d(int width, int height, std::vector<double> rows);
};

bool operator==(const FilterKernel& a, const FilterKernel& b);
inline bool operator!=(const FilterKernel& a, const FilterKernel& b) { return !(a == b); }

// Empty when a custom kernel is usable; otherwise what is wrong and what to do: an empty or even
// size, a side or tap count beyond the limits, a NaN or infinite weight (or one beyond float32's
// range), a matrix whose size does not match its weights, a zero sum with `normalize`. The
// Gaussian kind is checked by validate(FilterParams) instead (always empty here).
std::string validate(const FilterKernel& kernel);

// A rank-1 matrix as an outer product: matrix[j][i] = column[j] · row[i].
struct RankOneFactors {
  std::vector<double> column;  // along y, matrix_height weights
  std::vector<double> row;     // along x, matrix_width weights
};

// The factors of a Matrix kernel whose outer-product residual is within kRankOneTolerance of its
// largest weight (nullopt otherwise, or for another kind). An integer matrix (every weight a whole
// number below 2^24) gets integer factors when they exist (the primitive column, the pivot's row
// divided by its entry), so its separable sums stay exact; others get factors balanced in size.
// The factors are in the matrix's own order (not flipped for `convolve`).
std::optional<RankOneFactors> rank_one_factors(const FilterKernel& kernel);

// The largest |matrix[j][i] − u[j] v[i]| of the best outer-product fit through the largest weight,
// relative to the largest |weight| (0 for a zero matrix): what the rank-1 test compares with
// kRankOneTolerance, for messages.
double rank_one_residual(const FilterKernel& kernel);

// What a method runs, in correlation order (the kernel flipped already for `convolve`):
//   separable:  out = column pass (over y) of the row pass (over x), 2 rx + 1 and 2 ry + 1 taps
//               with the centre at index rx (ry): out[x] = sum_k row[k + rx] · in[x + k];
//               `column` is empty when the filter runs along x only;
//   otherwise:  out[y][x] = sum_j,i matrix[j][i] · in[y + j − ry][x + i − rx];
// and then divided by `divisor` (1: not at all).
struct KernelTaps {
  bool separable = true;
  std::vector<double> row;
  std::vector<double> column;
  int width = 0, height = 0;   // !separable: the matrix's size
  std::vector<double> matrix;  // !separable: height rows of width
  double divisor = 1.0;

  int radius_x() const { return separable ? static_cast<int>(row.size()) / 2 : width / 2; }
  int radius_y() const { return separable ? static_cast<int>(column.size()) / 2 : height / 2; }
};

// True when w[k] == w[n − 1 − k] for every k: the passes then fold the taps pairwise.
bool symmetric(const std::vector<double>& weights);
bool symmetric(const std::vector<float>& weights);

// "mask 1,2,1", "x mask -1,0,1 and y mask 1,2,1", "5×5 matrix (rank 1)", "41-tap mask", with
// ", convolved" and ", normalised" as set: for logs (describe(FilterParams) adds it).
std::string describe(const FilterKernel& kernel);

// "gaussian", "mask", "pair", "matrix".
const char* to_string(KernelKind kind);

}  // namespace gausslab
