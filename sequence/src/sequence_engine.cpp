// What both engines share: validation of a setup, the choice of backend, and the factory (the
// settings alone are checked in sequence_settings.cpp).
#include "gausslab/sequence/sequence_engine.hpp"

#include <cmath>
#include <stdexcept>

#include "engines.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

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
