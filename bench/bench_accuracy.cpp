#include "bench_accuracy.hpp"

#include <algorithm>

#include "gausslab/core/reference.hpp"

namespace gausslab {

std::vector<Rect> accuracy_crops(int width, int height) {
  const int w = std::min(width, kBenchCropSide), h = std::min(height, kBenchCropSide);
  std::vector<Rect> crops = {Rect{0, 0, w, h}};
  if (width >= 2 * kBenchCropSide || height >= 2 * kBenchCropSide)
    crops.push_back(Rect{width - w, height - h, w, h});
  return crops;
}

ConstImageView crop_view(const ConstImageView& view, const Rect& region) {
  const char* origin = view.row<char>(region.y) + static_cast<std::size_t>(region.x) * bytes_per_pixel(view.format);
  return ConstImageView(origin, region.width, region.height, view.pitch_bytes, view.format);
}

CropReference make_crop_reference(const ConstImageView& input, const FilterParams& params) {
  CropReference reference;
  reference.crops = accuracy_crops(input.width, input.height);
  for (const Rect& crop : reference.crops) reference.values.push_back(reference_gaussian_region(input, params, crop));
  return reference;
}

AccuracyStats crop_accuracy(const ConstImageView& result, const CropReference& reference) {
  const double peak = default_peak(result.format);
  AccuracyStats worst;
  for (std::size_t i = 0; i < reference.crops.size(); ++i) {
    const AccuracyStats stats =
        compare_with_reference(crop_view(result, reference.crops[i]), reference.values[i], peak);
    if (i == 0) {
      worst = stats;
      continue;
    }
    worst.max_abs_error = std::max(worst.max_abs_error, stats.max_abs_error);
    worst.rms_error = std::max(worst.rms_error, stats.rms_error);
    worst.max_relative_error = std::max(worst.max_relative_error, stats.max_relative_error);
    worst.relative_l2 = std::max(worst.relative_l2, stats.relative_l2);
    worst.psnr_db = std::min(worst.psnr_db, stats.psnr_db);
    worst.samples += stats.samples;
    worst.nonfinite += stats.nonfinite;
  }
  return worst;
}

}  // namespace gausslab
