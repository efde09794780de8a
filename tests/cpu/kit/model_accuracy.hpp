#pragma once
// The CPU model tests' parameters and their judgement against the float64 reference: parameter
// helpers, the error of a result in the unit of the method's bound (meets() decides), and the
// checks every separable model shares (photos and noise within the method's bound, flat fields
// stay flat, the accuracy table quoted in the docs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "kit/model_images.hpp"
#include "kit/params.hpp"

namespace gausslab::test {

// "rgba8 13×17, sigma 2.5, truncate 4, radius 10, mirror": for failure messages.
std::string describe_case(PixelFormat format, int width, int height, const FilterParams& params);

// A result against the float64 reference of its source: the statistics meets() judges, and where
// the largest error is ("pixel (3, 1) channel 2: 0.1234 vs 0.1230").
struct ReferenceCheck {
  AccuracyStats stats;
  std::string worst;
};
ReferenceCheck check_against_reference(const ConstImageView& src, const ConstImageView& result,
                                       const FilterParams& params);

// The error of `result` in the unit of the bound: max relative error (F32) or 8-bit levels (RGBA8).
// A NaN or infinity fails the calling test.
template <class Pixel>
double error_against_reference(const Image<Pixel>& src, const Image<Pixel>& result, const FilterParams& params) {
  const ReferenceCheck check = check_against_reference(src.view(), result.view(), params);
  EXPECT_EQ(check.stats.nonfinite, 0u) << describe_case(Image<Pixel>::format(), src.width(), src.height(), params);
  return bounded_error(check.stats, Image<Pixel>::format());
}

// What the registered method `method_id` promises for the problem.
AccuracyBound registered_bound(const std::string& method_id, const FilterProblem& problem);

// A model is callable as model(image, params) for Image<Rgba8> and Image<float> (a generic lambda).

// One case of a FIR model's sweep: an image size and a fixed radius (radius_params).
struct FirCase {
  int width, height;
  int radius;
};

// The model on a random Pixel image (seed `seed`) of every case, in every border mode: each result
// within `bound` of the float64 reference (relative error for F32, levels for RGBA8; the tensor-core
// FIR methods' sweep over their radii and tile edges).
template <class Pixel, class Model>
void expect_fir_cases_within(const std::vector<FirCase>& cases, std::uint32_t seed, double bound, Model model) {
  for (const FirCase& c : cases) {
    const Image<Pixel> src = random_image<Pixel>(c.width, c.height, seed);
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = radius_params(c.radius, border);
      EXPECT_LE(error_against_reference(src, model(src, params), params), bound)
          << describe_case(Image<Pixel>::format(), c.width, c.height, params);
    }
  }
}

// The model on a photo crop (RGBA8 and its luminance) and on noise, every border, at `sigmas`: each
// result meets the registered method's own bound.
template <class Model>
void expect_model_meets_its_bound(const std::string& method_id, const std::vector<double>& sigmas, Model model) {
  const ImageRgba8 photo = crop(astronaut(), Rect{150, 40, 72, 56});
  const ImageF32 photo_grey = to_grey_f32(photo);
  const ImageF32 noise = make_random_f32(41, 29, 7);
  for (const double sigma : sigmas)
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = sigma_params(sigma, border);
      const AccuracyBound bound = registered_bound(method_id, {photo.width(), photo.height(), PixelFormat::Rgba8, params});
      EXPECT_LE(error_against_reference(photo, model(photo, params), params), bound.max_error_8bit)
          << method_id << " model, photo rgba8, " << describe(params);
      EXPECT_LE(error_against_reference(photo_grey, model(photo_grey, params), params), bound.max_relative_error)
          << method_id << " model, photo f32, " << describe(params);
      EXPECT_LE(error_against_reference(noise, model(noise, params), params), bound.max_relative_error)
          << method_id << " model, noise f32, " << describe(params);
    }
}

// Weights summing to 1 within float rounding: a flat field moves by a few float ulps at most, and an
// RGBA8 flat field comes back exactly (every border but 'constant', which darkens the edges).
template <class Model>
void expect_flat_images_stay_flat(const std::vector<double>& sigmas, Model model) {
  const ImageF32 flat(37, 23, 0.7f);
  const ImageRgba8 flat_rgba(37, 23, Rgba8{200, 13, 255, 0});
  for (const double sigma : sigmas)
    for (const BorderMode border : {BorderMode::Reflect, BorderMode::Mirror, BorderMode::Nearest, BorderMode::Wrap}) {
      const FilterParams params = sigma_params(sigma, border);
      const ImageF32 out = model(flat, params);
      for (const float v : out.pixels()) ASSERT_NEAR(v, 0.7f, 1e-6f) << describe(params);
      EXPECT_EQ(first_difference(model(flat_rgba, params), flat_rgba), "") << describe(params);
    }
}

// Prints the accuracy table that a method's docs quote: per sigma, the largest F32 relative error
// per border over a photo crop, a star-field crop and noise, and the largest RGBA8 error in levels
// (rounding included) per border over the photo crop and RGBA noise. Slow: for DISABLED_ tests.
template <class Model>
void print_accuracy_table(const std::vector<double>& sigmas, Model model) {
  const ImageRgba8 photo = crop(astronaut(), Rect{150, 30, 160, 128});
  const ImageF32 photo_grey = to_grey_f32(photo);
  const ImageF32 stars = crop(hubble_grey(), Rect{400, 300, 160, 128});
  const ImageRgba8 noise_rgba = make_random_rgba8(61, 47, 3);
  const ImageF32 noise = make_random_f32(61, 47, 3);
  std::printf("sigma  | F32 max rel. error: reflect mirror nearest constant wrap | RGBA8 max levels: r m n c w\n");
  for (const double sigma : sigmas) {
    std::printf("%6.1f |", sigma);
    double levels[5] = {};
    int i = 0;
    for (const BorderMode border : kAllBorderModes) {
      const FilterParams params = sigma_params(sigma, border);
      double relative = 0;
      for (const ImageF32* image : {&photo_grey, &stars, &noise})
        relative = std::max(relative, error_against_reference(*image, model(*image, params), params));
      for (const ImageRgba8* image : {&photo, &noise_rgba})
        levels[i] = std::max(levels[i], error_against_reference(*image, model(*image, params), params));
      std::printf(" %.1e", relative);
      std::fflush(stdout);
      ++i;
    }
    std::printf(" |");
    for (const double l : levels) std::printf(" %.4f", l);
    std::printf("\n");
  }
}

}  // namespace gausslab::test
