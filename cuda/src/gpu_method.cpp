#include "gausslab/cuda/gpu_method.hpp"

#include <stdexcept>

namespace gausslab {

std::string GpuMethod::unsupported_reason(const FilterProblem& problem) const {
  if (std::string invalid = validate(problem); !invalid.empty()) return invalid;
  if (std::string axes = axes_refusal(info_, problem.params.axes); !axes.empty()) return axes;
  return method_limits(problem);
}

void GpuMethod::prepare(const FilterProblem& problem) {
  if (std::string reason = unsupported_reason(problem); !reason.empty())
    throw std::invalid_argument(info_.id + ": " + reason);
  if (problem == prepared_) return;
  on_prepare(problem);
  prepared_ = problem;
}

}  // namespace gausslab
