// What separable_shared and separable_texture share as methods: float32 sums stored by the
// problem's rounding (custom kernels and floor/ceil included), and kernels of their own for RGBA8,
// F32, RGBA16 and RGBA32F, the other formats running as F32 planes (gpu_method.hpp).
#pragma once

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"

namespace gausslab {

class FloatFirMethod : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    return with_rounding(kFloatRoundingBound, problem.params.rounding);
  }

  Route route(PixelFormat format) const override {
    return contains(RgbaAndFloatFormats{}, format) ? Route::Native : Route::FloatPlanes;
  }
};

}  // namespace gausslab
