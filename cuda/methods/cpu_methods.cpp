// cpu_separable and cpu_openmp — the CPU baselines of core/ behind the method interface, so that the
// viewer works without a CUDA device and the CPU-versus-GPU comparison is one click (and one row of
// the benchmark).
//
// Algorithm: core/cpu_filter.cpp: the row pass into a float intermediate, then the column pass,
// 2r + 1 taps per output accumulated in float32 (in float64 for 16-bit images, whose 0.51 levels
// float32 sums cannot promise: cpu_filter.cpp says why); one thread, or the rows spread over every
// core with OpenMP. The CPU model test is the method itself (tests/cpu/methods/cpu/test_cpu_methods.cpp).
// Cost: 2(r+1) multiply-adds per pixel and channel (symmetric taps folded; 2(2r+1) asymmetric,
// w × h for a 2D matrix); refused above 2e11 (minutes on a desktop CPU).
// Limits: any size, radius, border, format and kernel (a custom separable one through the same two
// passes, a 2D matrix through a direct 2D pass), every rounding; they run synchronously on host
// images and also filter 1D signals (along x only).
// Accuracy: float32 rounding; bound kCpuFilterBound (below: kFloatRoundingBound, 0.51 levels for
// 16-bit images), half a level more with floor or ceil (with_rounding).
// Measured (the host CPU of the H100 machine, gausslab-bench): 4096² F32 7×7 353 ms on one thread,
// 70 ms with OpenMP (run-to-run noise about ±20 %, docs/results/h100/README.md).
#include <chrono>
#include <cstdio>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

// Beyond this many multiply-adds one run takes minutes on a desktop CPU (about 1e9 per second and
// core for this code): refused up front rather than freezing the viewer.
constexpr double kMaxCpuWork = 2.0e11;

// float32 rounding (kFloatRoundingBound) for 8-bit, half and float images; 16-bit images, summed in
// float64, are within the rounding's half level (and 1e-9) of the float64 reference: 0.51 levels.
constexpr AccuracyBound kCpuFilterBound{kFloatRoundingBound.max_relative_error, kFloatRoundingBound.max_error_8bit,
                                        0.51};

class CpuMethod final : public Method {
 public:
  CpuMethod(MethodInfo info, CpuThreading threading) : info_(std::move(info)), threading_(threading) {}

  const MethodInfo& info() const override { return info_; }

  std::string unsupported_reason(const FilterProblem& problem) const override {
    if (std::string refusal = common_refusal(info_, problem); !refusal.empty()) return refusal;
    const double work = cpu_filter_cost(problem);
    if (work > kMaxCpuWork) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "%.2g multiply-adds would take minutes on the CPU; lower sigma (or the kernel's size) or the image size "
                    "(limit %.0e)",
                    work, kMaxCpuWork);
      return text;
    }
    return {};
  }

  // float32 (16-bit: float64) arithmetic with float64 weights rounded once: rounding-level error
  // only; floor and ceil lose up to a level against the unrounded reference.
  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    return with_rounding(kCpuFilterBound, problem.params.rounding);
  }

  void prepare(const FilterProblem& problem) override {
    if (std::string reason = unsupported_reason(problem); !reason.empty())
      throw std::invalid_argument(info_.id + ": " + reason);
    prepared_ = problem;
  }

  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t) override {
    check_views(src, dst);
    const auto start = std::chrono::steady_clock::now();
    cpu_gaussian_filter(src, dst, prepared_.params, threading_);
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    if (timer) timer->record_host("filter (cpu)", elapsed.count());
  }

 private:
  MethodInfo info_;
  CpuThreading threading_;
};

// Both CPU methods take every format, kernel and rounding; they differ in their threads only.
MethodEntry cpu_method_entry(const char* id, const char* name, const char* description, CpuThreading threading) {
  MethodInfo info{id, name, description, {}, Backend::Cpu, /*filters_along_x_only=*/true};
  info.same_bytes_in_bands = true;
  info.formats = FormatSet::all();
  info.accuracy = accuracy_promise("float32 rounding (16-bit images in float64)", kCpuFilterBound, info.formats);
  info.kernels = KernelSupport::Any;
  info.all_roundings = true;
  return {info, [info, threading] { return std::make_unique<CpuMethod>(info, threading); }};
}

}  // namespace

MethodEntry cpu_separable_method() {
  return cpu_method_entry("cpu_separable", "CPU separable (1 thread)",
                          "Row then column pass in float32 (16-bit images in float64) on one CPU thread; cost "
                          "grows with sigma (radius + 1 multiply-adds per pixel per pass)",
                          CpuThreading::Single);
}

MethodEntry cpu_openmp_method() {
  return cpu_method_entry("cpu_openmp", "CPU separable (OpenMP)",
                          "The single-thread CPU filter with rows spread over all cores by OpenMP; cost grows "
                          "with sigma",
                          CpuThreading::OpenMP);
}

}  // namespace gausslab
