// The GPU fault switch (cuda/include/gausslab/cuda/fault_injection.hpp) without a GPU: no-device
// makes every GPU method unavailable with the reason while the CPU methods run; out-of-memory
// makes every allocation fail with its size, as a CudaOutOfMemory that names what the memory was
// for. The same switch on the H100: tests/gpu/test_gpu_faults.cpp.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/fault_injection.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_fence.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FaultInjection, NamesParseBothWaysAndScopesRestoreTheSetting) {
  for (const InjectedFault fault :
       {InjectedFault::None, InjectedFault::OutOfMemory, InjectedFault::LaunchFailure, InjectedFault::NoDevice})
    EXPECT_EQ(injected_fault_from_string(to_string(fault)), fault);
  EXPECT_FALSE(injected_fault_from_string("oom").has_value());
  const InjectedFault before = injected_fault();
  {
    ScopedFaultInjection outer(InjectedFault::OutOfMemory);
    EXPECT_EQ(injected_fault(), InjectedFault::OutOfMemory);
    {
      ScopedFaultInjection inner(InjectedFault::NoDevice);
      EXPECT_EQ(injected_fault(), InjectedFault::NoDevice);
    }
    EXPECT_EQ(injected_fault(), InjectedFault::OutOfMemory);
  }
  EXPECT_EQ(injected_fault(), before);
}

TEST(FaultInjection, NoDeviceMakesEveryGpuMethodUnavailableWithTheReasonAndTheCpuMethodsRun) {
  const ScopedFaultInjection no_device(InjectedFault::NoDevice);
  EXPECT_FALSE(cuda_device_status().available);
  EXPECT_TRUE(contains(cuda_device_status().reason, "no CUDA device")) << cuda_device_status().reason;
  FilterProblem problem{64, 48, PixelFormat::Rgba8, {}};
  problem.params.sigma = 2.0;
  for (const MethodEntry& entry : method_registry()) {
    const std::unique_ptr<Method> method = entry.create();
    if (entry.info.backend == Backend::Cpu) {
      EXPECT_EQ(method_unavailable_reason(entry), "") << entry.info.id;
      const ImageRgba8 src = make_random_rgba8(problem.width, problem.height, 5);
      const ImageRgba8 out = run_on_host(*method, src, problem.params);
      ImageRgba8 expected(problem.width, problem.height);
      cpu_gaussian_filter(src.view(), expected.view(), problem.params, CpuThreading::Single);
      EXPECT_TRUE(out.pixels() == expected.pixels()) << entry.info.id << " ran differently without a device";
      continue;
    }
    const std::string reason = method_unavailable_reason(entry);
    EXPECT_TRUE(contains(reason, "no CUDA device")) << entry.info.id << ": " << reason;
    // A problem the method accepts (an RGBA8 or F32 image, a 1D signal for a 1D method, or a larger
    // sigma): its
    // prepare() gets as far as the device check.
    FilterProblem signal{64, 1, PixelFormat::F32, problem.params};
    signal.params.axes = FilterAxes::RowsOnly;
    FilterProblem large_sigma = problem;  // for a method that starts at sigma 4 (multires)
    large_sigma.params.sigma = 8.0;
    FilterProblem accepted = problem;
    for (const FilterProblem& candidate :
         {problem, FilterProblem{64, 48, PixelFormat::F32, problem.params}, signal, large_sigma})
      if (method->unsupported_reason(candidate).empty()) {
        accepted = candidate;
        break;
      }
    ASSERT_EQ(method->unsupported_reason(accepted), "") << entry.info.id << " refuses every problem tried";
    try {
      method->prepare(accepted);
      ADD_FAILURE() << entry.info.id << " prepared without a device";
    } catch (const CudaUnavailable& e) {
      EXPECT_TRUE(contains(e.what(), entry.info.id + ": no CUDA device")) << e.what();
    }
    EXPECT_EQ(method->prepared_problem().width, 0) << entry.info.id;
    // A refusal still comes first, with its own reason (it never needs a device).
    FilterProblem invalid = accepted;
    invalid.params.sigma = -1.0;
    EXPECT_THROW(method->prepare(invalid), std::invalid_argument) << entry.info.id;
  }
}

TEST(FaultInjection, OutOfMemoryFailsEveryAllocationWithItsSizeAndWhatItWasFor) {
  const ScopedFaultInjection out_of_memory(InjectedFault::OutOfMemory);
  DeviceBuffer buffer;
  try {
    buffer.resize(std::size_t{3} << 20);
    ADD_FAILURE() << "an allocation succeeded under an injected out-of-memory";
  } catch (const CudaOutOfMemory& e) {
    EXPECT_EQ(e.requested_bytes(), std::size_t{3} << 20);
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
    EXPECT_TRUE(contains(e.what(), "3.0 MiB")) << e.what();
    EXPECT_TRUE(contains(e.what(), "injected")) << e.what();
  }
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_THROW(DeviceImage(640, 480, PixelFormat::Rgba8), CudaOutOfMemory);

  const RunFence fence("my_method");
  ScratchBuffer scratch(fence);
  try {
    scratch.reserve(std::size_t{1} << 30, "the float intermediate of 16384×16384", "use separable_fused");
    ADD_FAILURE() << "a scratch allocation succeeded under an injected out-of-memory";
  } catch (const CudaOutOfMemory& e) {
    EXPECT_EQ(std::string(e.what()),
              "my_method: could not allocate 1024.0 MiB of GPU memory for the float intermediate of 16384×16384 "
              "(out of memory injected by GAUSSLAB_INJECT_FAULT); use separable_fused");
  }
  // CudaOutOfMemory is a CudaError: a caller that handles every GPU failure alike catches it too.
  EXPECT_THROW(scratch.reserve(10, "a little"), CudaError);
}

}  // namespace
}  // namespace gausslab
