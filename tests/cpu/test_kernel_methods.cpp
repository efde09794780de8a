// Custom kernels and roundings through the method interface: every registered method declares what
// it takes, refuses the rest up front with the reason (no device needed to ask), and the CPU
// methods run every kernel as core's CPU filter does.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FilterProblem with(FilterKernel kernel, PixelFormat format = PixelFormat::Rgba8) {
  FilterProblem problem{32, 24, format, {}};
  problem.params.kernel = std::move(kernel);
  return problem;
}

const std::vector<FilterKernel>& kernels() {
  static const std::vector<FilterKernel> all = {
      FilterKernel::mask({1, 2, 5}), FilterKernel::pair({1, 0, -1}, {1, 2, 1}),
      FilterKernel::matrix_2d(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1}),                // rank 1
      FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10})};              // full rank
  return all;
}

bool is_auto(const std::string& id) { return id == "auto" || id == "auto_exact"; }

TEST(KernelMethods, EveryGpuMethodRefusesACustomKernelAndFloorUpFront) {
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || is_auto(entry.info.id)) continue;
    EXPECT_EQ(entry.info.kernels, KernelSupport::GaussianOnly) << entry.info.id;
    const std::unique_ptr<Method> method = entry.create();
    for (const FilterKernel& kernel : kernels())
      EXPECT_TRUE(contains(method->unsupported_reason(with(kernel)), "not a custom kernel"))
          << entry.info.id << ": " << method->unsupported_reason(with(kernel));
    FilterProblem floor{32, 24, PixelFormat::Rgba8, {}};
    floor.params.rounding = IntegerRounding::Floor;
    EXPECT_TRUE(contains(method->unsupported_reason(floor), "rounded half up only, not by floor"))
        << entry.info.id << ": " << method->unsupported_reason(floor);
    // A float image is not rounded: floor changes nothing there, so it is no reason to refuse.
    floor.format = PixelFormat::F32;
    FilterProblem nearest = floor;
    nearest.params.rounding = IntegerRounding::Nearest;
    EXPECT_EQ(method->unsupported_reason(floor), method->unsupported_reason(nearest)) << entry.info.id;
  }
}

TEST(KernelMethods, TheCpuMethodsRunEveryKernelAndRoundingAsTheCpuFilterDoes) {
  const ImageRgba8 src = make_random_rgba8(32, 24, 4);
  for (const char* id : {"cpu_separable", "cpu_openmp"}) {
    const MethodEntry* entry = find_method(id);
    ASSERT_TRUE(entry);
    EXPECT_EQ(entry->info.kernels, KernelSupport::Any);
    EXPECT_TRUE(entry->info.all_roundings);
    const std::unique_ptr<Method> method = entry->create();
    for (const FilterKernel& kernel : kernels())
      for (IntegerRounding rounding : {IntegerRounding::Nearest, IntegerRounding::Floor, IntegerRounding::Ceil}) {
        FilterProblem problem = with(kernel);
        problem.params.rounding = rounding;
        problem.params.border = BorderMode::Wrap;
        ASSERT_EQ(method->unsupported_reason(problem), "") << id;
        const ImageRgba8 out = run_on_host(*method, src, problem.params);
        ImageRgba8 direct(32, 24);
        cpu_gaussian_filter(src.view(), direct.view(), problem.params, CpuThreading::Single);
        EXPECT_EQ(std::memcmp(out.data(), direct.data(), 32 * 24 * 4), 0) << id << ", " << describe(problem.params);
        EXPECT_DOUBLE_EQ(method->accuracy_bound(problem).max_error_8bit,
                         rounding == IntegerRounding::Nearest ? 0.51 : 1.01);
      }
  }
}

TEST(KernelMethods, AutoWithoutAGpuTakesCustomKernelsAndFloor) {
  if (cuda_device_status().available) GTEST_SKIP() << "a CUDA device is here: auto chooses among the GPU methods";
  for (const char* id : {"auto", "auto_exact"}) {
    const std::unique_ptr<Method> method = find_method(id)->create();
    FilterProblem problem = with(kernels().back());
    problem.params.rounding = IntegerRounding::Floor;
    EXPECT_EQ(method->unsupported_reason(problem), "") << id;
  }
}

}  // namespace
}  // namespace gausslab
