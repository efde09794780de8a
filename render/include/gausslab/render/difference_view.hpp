#pragma once
// The difference view's colours, free of GL: what shaders/image_view.frag draws for a pixel of A and
// B, written here once more in C++ for the legend, the saved difference image and the test that
// reads the shader's pixels back and compares (tests/ui).
// A - B is of the 8-bit results (whole levels) or, once the numbers are in, of their unrounded
// values (a float texture):
//   grey, absolute:  per channel min(|A-B| / 255 * gain, 1)
//   grey, signed:    per channel 0.5 + 0.5 * clamp((A-B) / 255 * gain, -1, 1)   (mid grey: equal)
//   false colour:    one value per pixel, the RGB channel with the largest |A-B| (the first on
//                    ties), through a colour map: sequential for |A-B| (black = equal), diverging
//                    for A-B (black = equal, blue: A below B, red to yellow: A above B).
#include <array>

#include "gausslab/core/pixel_format.hpp"

namespace gausslab {

struct DifferenceStyle {
  double gain = 8.0;
  bool signed_values = false;
  bool false_colour = false;
};

// The colour maps' control points, evenly spaced over [0, 1] (sequential) or [-1, 1] (diverging);
// linear in between. The shader holds the same numbers.
inline constexpr int kColourMapPoints = 5;
inline constexpr std::array<std::array<float, 3>, kColourMapPoints> kSequentialMap = {{
    {0.0f, 0.0f, 0.0f}, {0.25f, 0.05f, 0.52f}, {0.76f, 0.18f, 0.37f}, {0.98f, 0.55f, 0.10f}, {1.0f, 1.0f, 0.62f}}};
inline constexpr std::array<std::array<float, 3>, kColourMapPoints> kDivergingMap = {{
    {0.20f, 0.75f, 1.0f}, {0.05f, 0.25f, 0.75f}, {0.0f, 0.0f, 0.0f}, {0.75f, 0.12f, 0.08f}, {1.0f, 0.80f, 0.20f}}};

// The colour map at t in [0, 1] (sequential) or [-1, 1] (diverging), as 0..1 floats.
std::array<float, 3> colour_map(double t, bool diverging);

// The 8-bit colour the view shows for pixels a and b (alpha 255).
Rgba8 difference_colour(Rgba8 a, Rgba8 b, const DifferenceStyle& style);
// The same for a difference A - B of r, g, b in 8-bit levels, unrounded (the view of the numbers'
// values: comparison/unrounded_view.hpp); difference_colour(a, b) is this of the whole levels a - b.
Rgba8 difference_colour(const std::array<double, 3>& levels, const DifferenceStyle& style);

}  // namespace gausslab
