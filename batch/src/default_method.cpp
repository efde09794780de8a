#include "gausslab/batch/default_method.hpp"

#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

// Whether some registered GPU method takes these parameters' kernel and (for 8-bit images) rounding.
bool some_gpu_method_takes(const FilterParams& params) {
  const FilterProblem probe{64, 64, PixelFormat::Rgba8, params};
  for (const MethodEntry& entry : method_registry())
    if (entry.info.backend == Backend::Cuda && kernel_refusal(entry.info, params).empty() &&
        rounding_refusal(entry.info, probe).empty())
      return true;
  return false;
}

}  // namespace

MethodChoice choose_default_method(const FilterParams& params, bool cuda_available) {
  if (!cuda_available) return {"auto", "auto: no CUDA device, so cpu_openmp on every core"};
  if (!some_gpu_method_takes(params))
    return {"cpu_openmp", "no GPU method takes " +
                              (params.custom_kernel() ? std::string("a custom kernel")
                                                      : std::string("--rounding ") + to_string(params.rounding)) +
                              " yet, so the CPU filter on every core"};
  return {"auto", "auto: for each image the method measured fastest on this GPU (within 0.8 levels / 1e-3)"};
}

}  // namespace gausslab
