#include "slots.hpp"

#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

Slot::Slot(int history) : timer_(4, history) {}

namespace {

Method* made_on_first_use(std::vector<std::unique_ptr<Method>>& instances, int method) {
  if (instances.size() != method_registry().size()) instances.resize(method_registry().size());
  auto& made = instances.at(static_cast<std::size_t>(method));
  if (!made) made = method_registry()[static_cast<std::size_t>(method)].create();
  return made.get();
}

}  // namespace

Method* Slot::instance(int method) { return made_on_first_use(instances_, method); }
Method* Slot::band_instance(int method) { return made_on_first_use(band_instances_, method); }

void Slot::prepare(const FilterProblem& problem, ResultPipeline& pipeline) {
  if (prepared()) return;
  prepared_ = wanted_;
  problem_.clear();
  if (!shows_method()) return;
  const MethodEntry& entry = method_registry().at(static_cast<std::size_t>(wanted_.method));
  if (entry.info.backend == Backend::Cuda && !pipeline.runs_gpu_methods()) {
    problem_ = pipeline.path_reason();
    return;
  }
  Method* method = instance(wanted_.method);
  try {
    // prepare() may free or rewrite buffers that queued frames still read: let them finish first.
    if (method->prepared_problem() != problem) pipeline.synchronize();
    method->prepare(problem);
    bound_ = method->accuracy_bound(problem);
  } catch (const std::exception& error) {
    problem_ = error.what();
  }
}

}  // namespace gausslab
