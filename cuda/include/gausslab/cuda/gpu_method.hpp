#pragma once
// Common frame for the GPU methods: validation, the device check and prepare bookkeeping, so each
// method file holds only its limits, its scratch and its kernels.
#include <string>

#include "gausslab/cuda/method.hpp"

namespace gausslab {

class GpuMethod : public Method {
 public:
  explicit GpuMethod(MethodInfo info) : info_(std::move(info)) {}

  const MethodInfo& info() const final { return info_; }

  // validate(problem), then the method's own limits (method_limits).
  std::string unsupported_reason(const FilterProblem& problem) const final;

  // Throws std::invalid_argument when unsupported; calls on_prepare only when the problem changed.
  void prepare(const FilterProblem& problem) final;

 protected:
  // The method's own refusals: radius limits, impractical cost, ... Empty when it can run.
  virtual std::string method_limits(const FilterProblem& problem) const = 0;
  // Allocate scratch, upload weights, build plans for `problem` (prepared_ still holds the old one).
  virtual void on_prepare(const FilterProblem& problem) = 0;

 private:
  MethodInfo info_;
};

}  // namespace gausslab
