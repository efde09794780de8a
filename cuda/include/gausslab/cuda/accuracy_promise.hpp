#pragma once
// The accuracy bounds the methods promise, each stated once: a method's bound is a named constant
// (or a function of the problem built from one) in its own file, which its accuracy_bound() returns
// and its MethodInfo::accuracy words are made from (accuracy_promise below); the docs name the
// constant instead of repeating its numbers. The FIR class, shared by every method whose only error
// is float32 rounding, is here, as is the cap of the approximations that auto may choose.
#include <string>
#include <string_view>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/core/method_info.hpp"

namespace gausslab {

// A bound of `relative` of the peak for float images as the bound of every sample type: an integer
// image's result is that share of its largest level (255, 65535) from the exact value before the
// rounding to a level adds its 0.5; 8-bit results never promise less than `floor_8bit`.
constexpr AccuracyBound bound_of_relative(double relative, double floor_8bit = 0.51) {
  const double levels_8bit = 0.5 + 255.0 * relative;
  return {relative, levels_8bit > floor_8bit ? levels_8bit : floor_8bit, 0.5 + 65535.0 * relative};
}

// The FIR class: the exact truncated Gaussian in float32 arithmetic (every sum of non-negative terms,
// a few float roundings of the result's size), for any image: 1e-5 of the peak for float images,
// 0.51 levels for 8-bit ones and 1.16 for 16-bit ones (0.5 of each the rounding to a level; 1e-5 of
// 65535 is 0.66 levels). auto_exact chooses among these.
inline constexpr AccuracyBound kFloatRoundingBound = bound_of_relative(1e-5);

// The most auto may give up for speed: approximations within 1e-3 of the peak, 0.8 levels (8-bit);
// 16-bit images get the FIR class only (an approximation's 1e-3 would be 66 of their levels).
inline constexpr AccuracyBound kApproximationCap{1e-3, 0.8, kFloatRoundingBound.max_error_16bit};

// `bound` for a result stored by `rounding`: floor and ceil lose up to a whole level where half up
// loses half of one, so integer results get half a level more (float results are not rounded).
constexpr AccuracyBound with_rounding(const AccuracyBound& bound, IntegerRounding rounding) {
  if (rounding == IntegerRounding::Nearest) return bound;
  return {bound.max_relative_error, bound.max_error_8bit + 0.5, bound.max_error_16bit + 0.5};
}

// MethodInfo::accuracy from the bound: "<how>: within 1e-5 of the peak (float) and 0.51 levels
// (8-bit) of the float64 reference[, <qualifier>]", naming only the sample types `formats` holds.
std::string accuracy_promise(std::string_view how, const AccuracyBound& bound, FormatSet formats,
                             std::string_view qualifier = {});

// A bound's number as the docs write it: "1e-5", "2.5e-4", "0.51".
std::string bound_number(double value);

}  // namespace gausslab
