#pragma once
// The method used when --method is not given: the fastest that runs here within the accuracy cap.
#include <string>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {

struct MethodChoice {
  std::string id;
  std::string reason;  // one line for the log: why this method
};

// "auto" (cuda/include/gausslab/cuda/auto_method.hpp): for each image, the method measured fastest on
// this GPU within the project's accuracy cap, or cpu_openmp where there is no CUDA device; with a
// device, cpu_openmp also when no GPU method takes the params' kernel or rounding (kernel_refusal,
// rounding_refusal). The reason says which; `cuda_available` is whether a CUDA device can run the
// GPU methods.
MethodChoice choose_default_method(const FilterParams& params, bool cuda_available);

}  // namespace gausslab
