#include "comparison/slots.hpp"

#include "comparison/slot_preparer.hpp"

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

Slot::Slot(int history) : timer_(4, history) {}

Slot::~Slot() { wait_preparing(); }

namespace {

Method* made_on_first_use(std::vector<std::unique_ptr<Method>>& instances, int method, bool gpu_methods_run) {
  const std::vector<MethodEntry>& registry = method_registry(gpu_methods_run);
  if (instances.size() != registry.size()) instances.resize(registry.size());
  auto& made = instances.at(static_cast<std::size_t>(method));
  if (!made) made = registry[static_cast<std::size_t>(method)].create();
  return made.get();
}

}  // namespace

Method* Slot::instance(int method) { return made_on_first_use(instances_, method, gpu_methods_run_); }
Method* Slot::band_instance(int method) { return made_on_first_use(band_instances_, method, gpu_methods_run_); }

void Slot::set_gpu_methods_run(bool run) {
  if (run == gpu_methods_run_) return;
  release_instances();
  prepared_.reset();  // prepared by the other registry's instance
  gpu_methods_run_ = run;
}

void Slot::wait_preparing() {
  if (preparer_) preparer_->wait_idle();
}

void Slot::release_instances() {
  wait_preparing();
  preparing_.reset();
  instances_.clear();
  band_instances_.clear();
}

bool Slot::worker_running() const { return preparer_ && preparer_->busy(); }

void Slot::prepare(const FilterProblem& problem, ResultPipeline& pipeline) {
  if (preparing()) {
    // The outcome for the wanted setting, once the worker is idle (a later job could still be
    // re-preparing the same instance otherwise).
    if (preparer_->busy()) return;
    if (std::optional<PrepareOutcome> outcome = preparer_->take(wanted_)) {
      preparing_.reset();
      prepared_ = outcome->setting;
      problem_ = outcome->error;
      bound_ = outcome->bound;
      return;
    }
    preparing_.reset();  // lost (the instances were released): prepared again below
  }
  // A job for another setting may still run on this instance: the wanted one is prepared after it.
  if (prepared()) return;
  preparing_.reset();
  problem_.clear();
  if (!shows_method()) {
    prepared_ = wanted_;
    return;
  }
  const MethodEntry& entry = method_registry(gpu_methods_run_).at(static_cast<std::size_t>(wanted_.method));
  if (entry.info.backend == Backend::Cuda && !pipeline.runs_gpu_methods()) {
    prepared_ = wanted_;
    problem_ = pipeline.path_reason();
    return;
  }
  Method* method = instance(wanted_.method);
  const auto prepare_method = [method, problem, &pipeline] {
    // prepare() may free or rewrite buffers that queued frames still read: let them finish first.
    if (method->prepared_problem() != problem) pipeline.synchronize();
    method->prepare(problem);
    return method->accuracy_bound(problem);
  };
  if (entry.info.backend == Backend::Cuda) {
    // Off the UI thread: a new sigma makes fft build cuFFT plans and reserve buffers (100+ ms).
    if (!preparer_) preparer_ = std::make_unique<SlotPreparer>("slot prepare");
    preparing_ = wanted_;
    preparer_->submit(wanted_, [prepare_method] {
      GAUSSLAB_CUDA_CHECK(cudaSetDevice(cuda_device_status().device));  // this thread's device
      return prepare_method();
    });
    return;
  }
  prepared_ = wanted_;
  try {
    bound_ = prepare_method();
  } catch (const std::exception& error) {
    problem_ = error.what();
  }
}

}  // namespace gausslab
