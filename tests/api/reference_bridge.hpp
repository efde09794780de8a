#pragma once
// The float64 reference of core/ for the api tests, behind plain types: the tests include the
// public header only, whose names would meet core's in one translation unit.
#include <cstddef>
#include <vector>

namespace api_test {

// The float64 Gaussian of a tightly packed image (sample 0 u8, 1 u16, 2 f16, 3 f32; border in
// gausslab::Border's order), interleaved like the input.
std::vector<double> reference(const void* data, int width, int height, int sample, int channels, double sigma,
                              double truncate, int radius, int border, bool rows_only);

// The float64 result of a custom kernel (gausslab::Kernel's fields; kind 1 weights, 2 pair, 3 matrix).
std::vector<double> reference_custom(const void* data, int width, int height, int sample, int channels, int kind,
                                     const std::vector<double>& x, const std::vector<double>& y, int matrix_width,
                                     int matrix_height, const std::vector<double>& matrix, bool convolve,
                                     bool normalize, int border, bool rows_only);

}  // namespace api_test
