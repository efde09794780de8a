// GPU faults on the device: the fault switch (cuda/include/gausslab/cuda/fault_injection.hpp)
// makes allocations fail, launches fail and the device disappear, and a real out-of-memory comes
// from filling the device first. Every GPU method must report the failure as its typed exception
// with a clear message (CudaOutOfMemory naming the size, CudaError naming the kernel,
// CudaUnavailable), never crash, never leave a sticky error, and run correctly again afterwards;
// the other methods keep running. The stage scripts/gpu-stages/faults.sh runs these on the H100.
// (Without a GPU: tests/cpu/test_fault_injection.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/fault_injection.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class GpuFaults : public GpuTest {};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FilterParams sigma(double value) {
  FilterParams params;
  params.sigma = value;
  return params;
}

// A small problem the method accepts: an RGBA8 image, an F32 image, or a 1D signal (nullopt when it
// refuses all three; the reasons are printed).
std::optional<FilterProblem> small_problem(const Method& method) {
  FilterProblem signal{61, 1, PixelFormat::F32, sigma(2.0)};
  signal.params.axes = FilterAxes::RowsOnly;
  std::string reasons;
  const std::optional<FilterProblem> problem = first_supported(
      method, {{61, 47, PixelFormat::Rgba8, sigma(2.0)}, {61, 47, PixelFormat::F32, sigma(2.0)}, signal}, reasons);
  if (!problem) std::cout << "[ SKIPPED  ] " << method.info().id << " refuses every small problem: " << reasons << "\n";
  return problem;
}

// Runs `method` on a random image of `problem` and compares it with the reference: "" when right.
std::string runs_right(Method& method, const FilterProblem& problem, cudaStream_t stream) {
  const TestImage src = TestImage::random(problem.width, problem.height, problem.format, 17);
  TestImage result(src.width(), src.height(), problem.format);
  RunOptions options;
  options.stream = stream;
  options.poison_output = true;
  try {
    run_on_host(method, src.view(), result.view(), problem.params, options);
  } catch (const std::exception& e) {
    return std::string("the run threw: ") + e.what();
  }
  const std::string key = "faults/" + where(method.info().id, problem);
  const Comparison comparison =
      compare_with_reference_of(key, src.view(), result.view(), problem.params, method.accuracy_bound(problem));
  return comparison.passed() ? std::string() : comparison.describe();
}

// The same on the method's own small problem.
std::string runs_right(Method& method, cudaStream_t stream) {
  const std::optional<FilterProblem> problem = small_problem(method);
  return problem ? runs_right(method, *problem, stream) : std::string();
}

// The message of what `run` throws as E, or the reason it did not.
template <class E, class Run>
std::string message_of(Run run) {
  try {
    run();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another exception than the one expected: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

TEST_F(GpuFaults, OutOfMemoryIsReportedWithItsSizeAndEveryMethodRunsAgainAfterwards) {
  for (const std::string& id : gpu_method_ids()) {
    const std::unique_ptr<Method> method = create_method(id);
    const std::optional<FilterProblem> problem = small_problem(*method);
    if (!problem) continue;
    const TestImage src = TestImage::random(problem->width, problem->height, problem->format, 3);
    TestImage result(problem->width, problem->height, problem->format);
    {
      const ScopedFaultInjection out_of_memory(InjectedFault::OutOfMemory);
      RunOptions options;
      options.stream = stream();
      const std::string message = message_of<CudaOutOfMemory>(
          [&] { run_on_host(*method, src.view(), result.view(), problem->params, options); });
      EXPECT_TRUE(contains(message, "iB")) << id << ": the message names no size: " << message;
      std::cout << "[ OOM      ] " << id << ": " << message << "\n";
    }
    EXPECT_EQ(broken_context_reason(), "") << id;
    EXPECT_EQ(runs_right(*method, stream()), "") << id << ", the same instance after the out-of-memory";
  }
}

TEST_F(GpuFaults, AFailedLaunchNamesTheKernelAndLeavesNoStickyError) {
  for (const std::string& id : gpu_method_ids()) {
    const std::unique_ptr<Method> method = create_method(id);
    const std::optional<FilterProblem> problem = small_problem(*method);
    if (!problem) continue;
    ASSERT_EQ(runs_right(*method, *problem, stream()), "") << id << " before the fault";
    const TestImage src = TestImage::random(problem->width, problem->height, problem->format, 4);
    TestImage result(problem->width, problem->height, problem->format);
    {
      const ScopedFaultInjection launch_failure(InjectedFault::LaunchFailure);
      RunOptions options;
      options.stream = stream();
      const std::string message =
          message_of<CudaError>([&] { run_on_host(*method, src.view(), result.view(), problem->params, options); });
      EXPECT_TRUE(contains(message, "did not launch") && contains(message, "Kernel")) << id << ": " << message;
      std::cout << "[ LAUNCH   ] " << id << ": " << message << "\n";
    }
    EXPECT_EQ(broken_context_reason(), "") << id;
    EXPECT_EQ(runs_right(*method, stream()), "") << id << ", the same instance after the failed launch";
  }
}

TEST_F(GpuFaults, WithoutTheDeviceEveryGpuMethodIsUnavailableAndComesBackAfterwards) {
  for (const std::string& id : gpu_method_ids()) {
    const std::unique_ptr<Method> method = create_method(id);
    const std::optional<FilterProblem> problem = small_problem(*method);
    if (!problem) continue;
    {
      const ScopedFaultInjection no_device(InjectedFault::NoDevice);
      EXPECT_TRUE(contains(method_unavailable_reason(*find_method(id)), "no CUDA device")) << id;
      const std::string message = message_of<CudaUnavailable>([&] { method->prepare(*problem); });
      EXPECT_TRUE(contains(message, id + ": no CUDA device")) << message;
    }
    EXPECT_EQ(method_unavailable_reason(*find_method(id)), "") << id;
    EXPECT_EQ(runs_right(*method, stream()), "") << id << ", the same instance with the device back";
  }
}

TEST_F(GpuFaults, FftOutOfMemoryOnA16384SquaredImageNamesThePaddedSizeAndWhatIsFree) {
  const std::unique_ptr<Method> fft = create_method("fft");
  const FilterProblem problem{16384, 16384, PixelFormat::F32, sigma(2.0)};
  ASSERT_EQ(fft->unsupported_reason(problem), "") << "within fft's memory budget, so it is tried on the device";
  const ScopedFaultInjection out_of_memory(InjectedFault::OutOfMemory);
  const std::string message = message_of<CudaOutOfMemory>([&] { fft->prepare(problem); });
  EXPECT_TRUE(contains(message, "fft: could not allocate") && contains(message, "padded") &&
              contains(message, "GiB in all"))
      << message;
  std::cout << "[ OOM      ] fft 16384x16384 (injected): " << message << "\n";
}

// Takes device memory until only `keep_bytes` are free (as much as it can get).
std::vector<DeviceBuffer> fill_device(std::size_t keep_bytes) {
  std::vector<DeviceBuffer> filler;
  for (std::size_t piece = std::size_t{1} << 30; piece >= (std::size_t{16} << 20); piece /= 2)
    for (;;) {
      std::size_t free_bytes = 0, total_bytes = 0;
      GAUSSLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (free_bytes < keep_bytes + piece) break;
      try {
        filler.emplace_back(piece);
      } catch (const CudaOutOfMemory&) {
        break;
      }
    }
  return filler;
}

TEST_F(GpuFaults, RealOutOfMemoryWhenTheDeviceIsFullAndTheOtherMethodsKeepRunning) {
  std::vector<DeviceBuffer> filler = fill_device(std::size_t{256} << 20);
  std::cout << "[ FILLED   ] " << filler.size() << " buffers taken; " << describe_free_device_memory() << "\n";

  // fft on 16384×16384 F32 needs about 3 GiB of planes, spectra and work area; separable_shared on
  // 16384×16384 RGBA8 a 4 GiB intermediate. Neither fits now: real out-of-memory errors.
  const std::unique_ptr<Method> fft = create_method("fft");
  const std::string fft_message =
      message_of<CudaOutOfMemory>([&] { fft->prepare({16384, 16384, PixelFormat::F32, sigma(2.0)}); });
  EXPECT_TRUE(contains(fft_message, "fft") && contains(fft_message, "free")) << fft_message;
  std::cout << "[ OOM      ] fft 16384x16384 (real): " << fft_message << "\n";
  const std::unique_ptr<Method> shared = create_method("separable_shared");
  const std::string shared_message =
      message_of<CudaOutOfMemory>([&] { shared->prepare({16384, 16384, PixelFormat::Rgba8, sigma(2.0)}); });
  EXPECT_TRUE(contains(shared_message, "separable_shared: could not allocate 4096.0 MiB")) << shared_message;
  std::cout << "[ OOM      ] separable_shared 16384x16384 (real): " << shared_message << "\n";
  EXPECT_EQ(broken_context_reason(), "");

  // The device is still full: small problems of every method run, the failed instances included.
  for (const std::string& id : gpu_method_ids()) {
    const std::unique_ptr<Method> method = create_method(id);
    EXPECT_EQ(runs_right(*method, stream()), "") << id << " on a full device";
  }
  EXPECT_EQ(runs_right(*fft, stream()), "") << "fft, the instance that ran out of memory";
  EXPECT_EQ(runs_right(*shared, stream()), "") << "separable_shared, the instance that ran out of memory";

  filler.clear();
  EXPECT_NO_THROW(fft->prepare({16384, 16384, PixelFormat::F32, sigma(2.0)})) << "with the memory back";
  std::cout << "[ FREED    ] " << describe_free_device_memory() << " after fft prepared 16384x16384 again\n";
}

// GAUSSLAB_INJECT_FAULT set for the whole process (scripts/gpu-stages/faults.sh): the switch is read
// from the environment and every GPU method fails as the fault says, with the typed exception.
TEST(GpuFaultsFromTheEnvironment, EveryGpuMethodFailsAsTheSwitchSays) {
  const char* value = std::getenv("GAUSSLAB_INJECT_FAULT");
  if (!value || !*value) GTEST_SKIP() << "GAUSSLAB_INJECT_FAULT is not set (scripts/gpu-stages/faults.sh sets it)";
  EXPECT_EQ(std::string(to_string(injected_fault())), value);
  if (injected_fault() != InjectedFault::NoDevice && !cuda_device_status().available)
    GTEST_SKIP() << "GAUSSLAB_INJECT_FAULT=" << value << " needs a CUDA device: " << cuda_device_status().reason;
  for (const std::string& id : gpu_method_ids()) {
    const std::unique_ptr<Method> method = create_method(id);
    const std::optional<FilterProblem> problem = small_problem(*method);
    if (!problem) continue;
    const TestImage src = TestImage::random(problem->width, problem->height, problem->format, 5);
    TestImage result(problem->width, problem->height, problem->format);
    const auto run = [&] { run_on_host(*method, src.view(), result.view(), problem->params); };
    std::string message;
    switch (injected_fault()) {
      case InjectedFault::NoDevice: message = message_of<CudaUnavailable>(run); break;
      case InjectedFault::OutOfMemory: message = message_of<CudaOutOfMemory>(run); break;
      case InjectedFault::LaunchFailure: message = message_of<CudaError>(run); break;
      case InjectedFault::None: GTEST_SKIP() << "GAUSSLAB_INJECT_FAULT=none";
    }
    EXPECT_FALSE(message.empty()) << id;
    std::cout << "[ " << value << " ] " << id << ": " << message << "\n";
  }
}

}  // namespace
}  // namespace gausslab::gpu_test
