#include "gausslab/batch/default_method.hpp"

#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

// Whether the registered method accepts these parameters at all (asked for a 64×64 RGBA8 image,
// a size every method must take).
bool accepts(const char* id, const FilterParams& params) {
  const MethodEntry* entry = find_method(id);
  if (!entry) return false;
  const FilterProblem probe{64, 64, PixelFormat::Rgba8, params};
  return entry->create()->unsupported_reason(probe).empty();
}

}  // namespace

MethodChoice choose_default_method(const FilterParams& params, bool cuda_available) {
  if (!cuda_available)
    return {"cpu_openmp", "no CUDA device here, so the CPU filter on every core"};
  if (params.sigma < 8 && accepts("separable_fused", params))
    return {"separable_fused", "the fastest measured for sigma below 8 (radius up to 64)"};
  if (params.sigma < 16 || !accepts("recursive", params))
    return {"separable_shared", params.sigma < 16 ? "the fastest measured for sigma 8 to 16"
                                                  : "recursive refuses this truncate, so the fastest exact method"};
  return {"recursive", "constant time in sigma, the fastest measured from sigma 16 on"};
}

}  // namespace gausslab
