#include "gausslab/core/method_info.hpp"

namespace gausslab {

const char* to_string(Backend backend) { return backend == Backend::Cpu ? "cpu" : "cuda"; }

std::string axes_refusal(const MethodInfo& info, FilterAxes axes) {
  if (axes == FilterAxes::Both || info.filters_along_x_only) return {};
  return info.id + " filters images along both axes only; a 1D signal (filtered along x only) needs a method that "
                   "filters along one axis (gausslab-filter --list-methods marks them '1D')";
}

}  // namespace gausslab
