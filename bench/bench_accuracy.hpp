#pragma once
// Accuracy of a benchmarked result against the float64 reference, on corner crops (so that the
// borders count) instead of the whole image (the reference of a 4096² image would take longer than
// all the timing).
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

inline constexpr int kBenchCropSide = 96;  // the side of the benchmark's accuracy crops

// The top-left and the bottom-right corner crop, each at most 96×96; one crop when they would
// overlap (small images).
std::vector<Rect> accuracy_crops(int width, int height);

// The pixels of `region` of a host view, as a view (same pitch, no copy).
ConstImageView crop_view(const ConstImageView& view, const Rect& region);

// The float64 reference on each crop of one input, computed once and shared by every method.
struct CropReference {
  std::vector<Rect> crops;
  std::vector<std::vector<double>> values;  // one per crop, as reference_gaussian_region returns
};
CropReference make_crop_reference(const ConstImageView& input, const FilterParams& params);

// The worst over the crops: largest errors, lowest PSNR, every non-finite value counted.
AccuracyStats crop_accuracy(const ConstImageView& result, const CropReference& reference);

}  // namespace gausslab
