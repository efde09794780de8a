#include "gausslab/batch/default_method.hpp"

namespace gausslab {

MethodChoice choose_default_method(const FilterParams&, bool cuda_available) {
  if (!cuda_available) return {"auto", "auto: no CUDA device, so cpu_openmp on every core"};
  return {"auto", "auto: for each image the method measured fastest on this GPU (within 0.8 levels / 1e-3)"};
}

}  // namespace gausslab
