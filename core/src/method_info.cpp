#include "gausslab/core/method_info.hpp"

#include <cstdio>

namespace gausslab {

std::string FormatSet::describe() const {
  if (*this == all()) return "every format";
  std::string list;
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto f = static_cast<PixelFormat>(i);
    if (!contains(f)) continue;
    if (!list.empty()) list += ", ";
    list += to_string(f);
  }
  return list.empty() ? "no format" : list;
}

std::string format_refusal(const MethodInfo& info, PixelFormat format) {
  if (info.formats.contains(format)) return {};
  return info.id + " does not filter " + describe(format) + " (" + to_string(format) + ") images; it takes " +
         info.formats.describe() + " (gausslab-filter --list-methods shows which methods take which)";
}

const char* to_string(Backend backend) { return backend == Backend::Cpu ? "cpu" : "cuda"; }

std::string axes_refusal(const MethodInfo& info, FilterAxes axes) {
  if (axes == FilterAxes::Both || info.filters_along_x_only) return {};
  return info.id + " filters images along both axes only; a 1D signal (filtered along x only) needs a method that "
                   "filters along one axis (gausslab-filter --list-methods marks them '1D')";
}

const char* to_string(KernelSupport kernels) {
  switch (kernels) {
    case KernelSupport::Separable:
      return "separable";
    case KernelSupport::Any:
      return "any 2D";
    default:
      return "gaussian only";
  }
}

std::string kernel_refusal(const MethodInfo& info, const FilterParams& params) {
  if (!params.custom_kernel() || info.kernels == KernelSupport::Any) return {};
  const std::string where = " (gausslab-filter --list-methods marks the methods that take custom kernels)";
  if (info.kernels == KernelSupport::GaussianOnly)
    return info.id + " runs the Gaussian of --sigma only, not a custom kernel; choose a method that takes one, such as "
                     "cpu_openmp" + where;
  const FilterKernel& k = params.kernel;
  if (k.kind != KernelKind::Matrix || rank_one_factors(k)) return {};
  char fit[160];
  std::snprintf(fit, sizeof fit, "its best fit misses by %.2g of its largest weight; rank 1 needs at most %.2g",
                rank_one_residual(k), kRankOneTolerance);
  return info.id + " runs separable kernels only, and this " + std::to_string(k.matrix_height) + "×" +
         std::to_string(k.matrix_width) + " matrix is not the outer product of two masks (" + fit +
         "): choose a method that takes any 2D kernel, such as cpu_openmp" + where;
}

std::string rounding_refusal(const MethodInfo& info, const FilterProblem& problem) {
  const IntegerRounding rounding = problem.params.rounding;
  if (rounding == IntegerRounding::Nearest || info.all_roundings || !is_integer(sample_type(problem.format))) return {};
  return info.id + " stores integer samples rounded half up only, not by " + to_string(rounding) +
         "; choose a method that takes --rounding " + to_string(rounding) +
         ", such as cpu_openmp (gausslab-filter --list-methods marks them)";
}

std::string common_refusal(const MethodInfo& info, const FilterProblem& problem) {
  if (std::string invalid = validate(problem); !invalid.empty()) return invalid;
  if (std::string format = format_refusal(info, problem.format); !format.empty()) return format;
  if (std::string axes = axes_refusal(info, problem.params.axes); !axes.empty()) return axes;
  if (std::string kernel = kernel_refusal(info, problem.params); !kernel.empty()) return kernel;
  return rounding_refusal(info, problem);
}

}  // namespace gausslab
