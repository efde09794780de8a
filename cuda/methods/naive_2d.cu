// PLACEHOLDER: replaced by the real method. Refuses every problem so nothing runs it wrongly.
#include "gausslab/cuda/gpu_method.hpp"
#include "methods.hpp"

namespace gausslab {
namespace {
class Placeholder final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;
  std::string method_limits(const FilterProblem&) const override { return "not implemented yet"; }
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }
  void on_prepare(const FilterProblem&) override {}
  void run(const ConstImageView&, const ImageView&, StageTimer*, cudaStream_t) override {}
};
}  // namespace

MethodEntry naive_2d_method() {
  MethodInfo info{"naive_2d", "naive_2d", "not implemented yet", "", Backend::Cuda};
  return {info, [info] { return std::make_unique<Placeholder>(info); }};
}
}  // namespace gausslab
