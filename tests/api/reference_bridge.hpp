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

}  // namespace api_test
