// What both engines share: validation, the choice of backend, and the factory.
#include "gausslab/sequence/sequence_engine.hpp"

#include <cmath>
#include <stdexcept>

#include "engines.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

std::string validate(const SequenceSettings& s) {
  if (s.history < 1 || s.history > seq::kMaxHistory)
    return "--history " + std::to_string(s.history) + " is outside 1.." + std::to_string(seq::kMaxHistory);
  if (s.degree < 0 || s.degree > seq::kMaxDegree)
    return "--degree " + std::to_string(s.degree) + " is outside 0.." + std::to_string(seq::kMaxDegree);
  if (!std::isfinite(s.gamma) || s.gamma <= 0.0 || s.gamma > 1e6)
    return "--gamma must be a number in (0, 1e6] (it keeps the weights' system well posed; 1e-6 matches the moments "
           "almost exactly, large values give the plain mean of the history)";
  if (s.search_radius < 0 || s.search_radius > seq::kMaxSearchRadius)
    return "--search-radius " + std::to_string(s.search_radius) + " is outside 0.." +
           std::to_string(seq::kMaxSearchRadius);
  return {};
}

const char* to_string(SequenceBackend backend) { return backend == SequenceBackend::Gpu ? "gpu" : "cpu"; }

std::string validate(const SequenceSetup& setup, SequenceBackend backend) {
  if (std::string problem = validate(setup.settings); !problem.empty()) return problem;
  if (setup.width < seq::kMinSide || setup.height < seq::kMinSide)
    return "frames of " + std::to_string(setup.width) + "x" + std::to_string(setup.height) +
           " are too small: shift estimation needs at least " + std::to_string(seq::kMinSide) + " px on each side";
  if (static_cast<long long>(setup.width) * setup.height > kMaxPixels)
    return "frames of " + std::to_string(setup.width) + "x" + std::to_string(setup.height) + " are too large";
  if (setup.prefilter) {
    const MethodInfo& info = setup.prefilter->info();
    const bool gpu_method = info.backend == Backend::Cuda;
    if (gpu_method != (backend == SequenceBackend::Gpu))
      return std::string("the pre-filter ") + info.id + " runs on the " + (gpu_method ? "GPU" : "CPU") +
             " but the sequence runs on the " + (backend == SequenceBackend::Gpu ? "GPU" : "CPU") +
             ": choose a " + (backend == SequenceBackend::Gpu ? "GPU" : "CPU") + " method";
    const FilterProblem problem{setup.width, setup.height, PixelFormat::F32, setup.prefilter_params};
    if (std::string reason = setup.prefilter->unsupported_reason(problem); !reason.empty())
      return std::string("the pre-filter ") + info.id + " cannot run: " + reason;
  }
  return {};
}

SequenceBackend default_sequence_backend() {
  return cuda_device_status().available ? SequenceBackend::Gpu : SequenceBackend::Cpu;
}

std::unique_ptr<SequenceEngine> create_sequence_engine(SequenceBackend backend) {
  if (backend == SequenceBackend::Cpu) return make_cpu_sequence_engine();
  const CudaDeviceStatus& status = cuda_device_status();
  if (!status.available) throw std::runtime_error("the GPU sequence engine needs a CUDA device: " + status.reason);
  return make_gpu_sequence_engine();
}

}  // namespace gausslab
