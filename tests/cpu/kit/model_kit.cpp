// The non-template parts of the CPU-model test kit.
#include <cmath>
#include <stdexcept>

#include "gausslab/core/image_io.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/registry.hpp"
#include "kit/model_accuracy.hpp"
#include "kit/model_images.hpp"
#include "support/test_support.hpp"

namespace gausslab::test {

const ImageRgba8& astronaut() {
  static const ImageRgba8 image = load_image_rgba8(test_data_path("astronaut.png")).image;
  return image;
}

const ImageF32& hubble_grey() {
  static const ImageF32 image = to_grey_f32(load_image_rgba8(test_data_path("hubble_deep_field.jpg")).image);
  return image;
}

std::string describe_case(PixelFormat format, int width, int height, const FilterParams& params) {
  return std::string(to_string(format)) + " " + std::to_string(width) + "×" + std::to_string(height) + ", " +
         describe(params);
}

ReferenceCheck check_against_reference(const ConstImageView& src, const ConstImageView& result,
                                       const FilterParams& params) {
  const std::vector<double> reference = reference_gaussian(src, params);
  ReferenceCheck check;
  check.stats = compare_with_reference(result, reference, default_peak(result.format));
  const int channels = channel_count(result.format);
  double worst = -1.0;
  std::size_t i = 0;
  for (int y = 0; y < result.height; ++y)
    for (int x = 0; x < result.width; ++x)
      for (int c = 0; c < channels; ++c, ++i) {
        const double value = channel_value(result, x, y, c);
        const double error = std::isfinite(value) ? std::abs(value - reference[i]) : INFINITY;
        if (error > worst) {
          worst = error;
          check.worst = "pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") channel " + std::to_string(c) +
                        ": " + std::to_string(value) + " vs " + std::to_string(reference[i]);
        }
      }
  return check;
}

AccuracyBound registered_bound(const std::string& method_id, const FilterProblem& problem) {
  const MethodEntry* entry = find_method(method_id);
  if (!entry) throw std::runtime_error("no method '" + method_id + "' in the registry (" + method_id_list() + ")");
  return entry->create()->accuracy_bound(problem);
}

}  // namespace gausslab::test
