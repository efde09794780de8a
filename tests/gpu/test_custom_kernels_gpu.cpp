// Custom kernels and --rounding floor/ceil on the GPU methods that take them (MethodInfo::kernels,
// all_roundings: separable_shared, separable_texture, naive_2d; docs/kernels.md):
//   - every kind (an asymmetric mask, a 41-tap pair of two lengths, a convolved normalised rank-1
//     matrix, full-rank matrices square and not) in every border, in RGBA8, F32, RGBA16, RGBA32F and
//     two formats through the channel adapter (grey16, rgb8), nearest, floor and ceil for the
//     integer ones: within the method's own bound of the float64 reference; a separable method
//     refuses a full-rank matrix up front with the reason;
//   - normalised integer tables stored by floor (the original BMP system's kind: a 5×5 table, zero
//     border) equal integer arithmetic written here, byte for byte, at 1920×1080;
//   - issue 37's sizes: the 41-tap pair and the 5×5 table at 4096² within the bound;
//   - every other GPU method refuses a custom kernel and floor up front.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

struct NamedKernel {
  std::string name;
  FilterKernel kernel;
};

std::vector<NamedKernel> kernels() {
  FilterKernel pair = FilterKernel::pair(std::vector<double>(41, 1.0), {1, 2, 3, 2, 1});  // unnormalised
  FilterKernel rank_one = FilterKernel::matrix_2d(5, 3, {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1});
  rank_one.convolve = true;
  rank_one.normalize = true;
  FilterKernel wide = FilterKernel::matrix_2d(7, 3, {0.5, -1, 2,   0.25, 1,   3,    0,     //
                                                     -2,  1,  0.5, 1,    1,   4,    -0.5,  //
                                                     2,   0,  1,   -1,   0.5, 0.25, 1});
  wide.convolve = true;
  return {{"mask 1,2,5,-1,0.5", FilterKernel::mask({1, 2, 5, -1, 0.5})},
          {"pair 41x5", pair},
          {"rank-1 5x3 convolved normalised", rank_one},
          {"full 3x3", FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10})},
          {"full 7x3 convolved", wide}};
}

bool full_rank(const FilterKernel& kernel) { return kernel.kind == KernelKind::Matrix && !rank_one_factors(kernel); }

std::vector<const MethodEntry*> custom_kernel_methods() {
  std::vector<const MethodEntry*> methods;
  for (const MethodEntry& entry : method_registry())
    if (entry.info.backend == Backend::Cuda && entry.info.kernels != KernelSupport::GaussianOnly)
      methods.push_back(&entry);
  return methods;
}

class GpuCustomKernels : public GpuTest {};

TEST_F(GpuCustomKernels, EveryKindBorderFormatAndRoundingWithinTheBound) {
  const std::vector<PixelFormat> formats = {PixelFormat::Rgba8,   PixelFormat::F32,    PixelFormat::Rgba16,
                                            PixelFormat::Rgba32F, PixelFormat::Grey16, PixelFormat::Rgb8};
  const std::vector<std::pair<int, int>> sizes = quick_mode()
                                                     ? std::vector<std::pair<int, int>>{{13, 7}}
                                                     : std::vector<std::pair<int, int>>{{1, 1}, {13, 7}, {263, 61}};
  ASSERT_EQ(custom_kernel_methods().size(), 3u) << "separable_shared, separable_texture and naive_2d";
  // The methods innermost: the three share each case's reference (cached per image and kernel).
  std::vector<std::unique_ptr<Method>> methods;
  for (const MethodEntry* entry : custom_kernel_methods()) methods.push_back(entry->create());
  int runs = 0;
  for (const PixelFormat format : formats)
    for (const auto& [w, h] : sizes) {
      const TestImage src = TestImage::random(w, h, format, static_cast<std::uint32_t>(w * 31 + h));
      const std::string image =
          std::string(to_string(format)) + "_random_" + std::to_string(w) + "x" + std::to_string(h);
      for (const NamedKernel& k : kernels())
        for (const BorderMode border : kAllBorderModes)
          for (const IntegerRounding rounding :
               {IntegerRounding::Nearest, IntegerRounding::Floor, IntegerRounding::Ceil}) {
            if (rounding != IntegerRounding::Nearest && !is_integer(sample_type(format))) continue;
            FilterParams params;
            params.kernel = k.kernel;
            params.border = border;
            params.rounding = rounding;
            const FilterProblem problem{w, h, format, params};
            for (const std::unique_ptr<Method>& method : methods) {
              const MethodInfo& info = method->info();
              const std::string at = where(info.id, problem, image) + ", " + k.name;
              const std::string reason = method->unsupported_reason(problem);
              if (info.kernels == KernelSupport::Separable && full_rank(k.kernel)) {
                EXPECT_NE(reason.find("not the outer product"), std::string::npos) << at << ": " << reason;
                continue;
              }
              ASSERT_EQ(reason, "") << at;
              TestImage dst(w, h, format);
              RunOptions options;
              options.stream = stream();
              options.poison_output = true;
              run_on_host(*method, src.view(), dst.view(), params, options);
              const Comparison c =
                  compare_with_reference_of(image, src.view(), dst.view(), params, method->accuracy_bound(problem));
              EXPECT_TRUE(c.passed()) << at << ": " << c.describe();
              record(info.id, image + " " + k.name, problem, c.passed() ? Outcome::Passed : Outcome::Failed,
                     c.describe(), &c);
              ++runs;
            }
          }
    }
  EXPECT_GT(runs, 0);
}

// sum_j,i table[j][i] · src[y + j − ry][x + i − rx] over the image (a zero border), floored by the
// table's sum: the original BMP system's arithmetic, in integers.
std::vector<std::uint8_t> floor_of_integer_table(const TestImage& src, const std::vector<int>& table, int tw, int th) {
  const int w = src.width(), h = src.height(), rx = tw / 2, ry = th / 2;
  long sum = 0;
  for (int v : table) sum += v;
  const auto* in = static_cast<const std::uint8_t*>(src.view().data);
  const std::size_t pitch = src.view().pitch_bytes;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 4; ++c) {
        long total = 0;
        for (int j = 0; j < th; ++j) {
          const int sy = y + j - ry;
          if (sy < 0 || sy >= h) continue;
          for (int i = 0; i < tw; ++i) {
            const int sx = x + i - rx;
            if (sx >= 0 && sx < w) total += table[static_cast<std::size_t>(j) * tw + i] * in[sy * pitch + sx * 4 + c];
          }
        }
        out[(static_cast<std::size_t>(y) * w + x) * 4 + c] = static_cast<std::uint8_t>(total / sum);
      }
  return out;
}

void expect_bytes_equal(const TestImage& result, const std::vector<std::uint8_t>& expected, const std::string& at) {
  const int w = result.width(), h = result.height();
  const auto* out = static_cast<const std::uint8_t*>(result.view().data);
  long differing = 0;
  std::string first;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w * 4; ++x)
      if (out[y * result.view().pitch_bytes + x] != expected[static_cast<std::size_t>(y) * w * 4 + x]) {
        if (differing++ == 0)
          first = "first at pixel (" + std::to_string(x / 4) + ", " + std::to_string(y) + ") channel " +
                  std::to_string(x % 4) + ": " + std::to_string(out[y * result.view().pitch_bytes + x]) + " vs " +
                  std::to_string(expected[static_cast<std::size_t>(y) * w * 4 + x]);
      }
  EXPECT_EQ(differing, 0) << at << ": " << differing << " bytes differ from integer arithmetic, " << first;
}

TEST_F(GpuCustomKernels, NormalisedIntegerTablesByFloorEqualIntegerArithmeticByteForByte) {
  const int w = quick_mode() ? 67 : 1920, h = quick_mode() ? 41 : 1080;
  const TestImage src = TestImage::random(w, h, PixelFormat::Rgba8, 5);
  // The 5×5 table of a Gaussian of sigma 1.5 in integers (not rank 1: naive_2d only), and an
  // integer pair as its 5×3 outer product (every taking method).
  const std::vector<int> table = {1, 4, 7, 4, 1, 4, 16, 26, 16, 4, 7, 26, 41, 26, 7, 4, 16, 26, 16, 4, 1, 4, 7, 4, 1};
  const std::vector<int> x_mask = {1, 4, 6, 4, 1}, y_mask = {1, 2, 1};
  std::vector<int> outer;
  for (int j : y_mask)
    for (int i : x_mask) outer.push_back(j * i);
  for (const MethodEntry* entry : custom_kernel_methods()) {
    const std::unique_ptr<Method> method = entry->create();
    FilterParams params;
    params.border = BorderMode::Constant;
    params.rounding = IntegerRounding::Floor;
    params.kernel = FilterKernel::pair({1, 4, 6, 4, 1}, {1, 2, 1});
    params.kernel.normalize = true;
    std::vector<std::pair<FilterParams, std::vector<std::uint8_t>>> cases = {
        {params, floor_of_integer_table(src, outer, 5, 3)}};
    if (entry->info.kernels == KernelSupport::Any) {
      params.kernel = FilterKernel::matrix_2d(5, 5, std::vector<double>(table.begin(), table.end()));
      params.kernel.normalize = true;
      cases.push_back({params, floor_of_integer_table(src, table, 5, 5)});
    }
    for (const auto& [p, expected] : cases) {
      TestImage dst(w, h, PixelFormat::Rgba8);
      RunOptions options;
      options.stream = stream();
      options.poison_output = true;
      run_on_host(*method, src.view(), dst.view(), p, options);
      expect_bytes_equal(dst, expected, where(entry->info.id, {w, h, PixelFormat::Rgba8, p}));
    }
  }
}

TEST_F(GpuCustomKernels, Issue37SizesAt4096SquareWithinTheBound) {
  const int side = quick_mode() ? 256 : 4096;
  const TestImage src = TestImage::random(side, side, PixelFormat::Rgba8, 37);
  const std::string image = "rgba8_random_" + std::to_string(side);
  FilterParams pair;
  pair.kernel = FilterKernel::pair(std::vector<double>(41, 1.0 / 41), std::vector<double>(41, 1.0 / 41));
  FilterParams table;
  table.kernel = FilterKernel::matrix_2d(
      5, 5, {1, 4, 7, 4, 1, 4, 16, 26, 16, 4, 7, 26, 41, 26, 7, 4, 16, 26, 16, 4, 1, 4, 7, 4, 1});
  table.kernel.normalize = true;
  table.border = BorderMode::Constant;
  table.rounding = IntegerRounding::Floor;
  for (const MethodEntry* entry : custom_kernel_methods())
    for (const FilterParams& params : {pair, table}) {
      const std::unique_ptr<Method> method = entry->create();
      const FilterProblem problem{side, side, PixelFormat::Rgba8, params};
      if (!method->unsupported_reason(problem).empty()) continue;  // the table on a separable method
      TestImage dst(side, side, PixelFormat::Rgba8);
      RunOptions options;
      options.stream = stream();
      run_on_host(*method, src.view(), dst.view(), params, options);
      const Comparison c =
          compare_with_reference_of(image, src.view(), dst.view(), params, method->accuracy_bound(problem));
      EXPECT_TRUE(c.passed()) << where(entry->info.id, problem, image) << ": " << c.describe();
    }
}

TEST_F(GpuCustomKernels, EveryOtherMethodRefusesACustomKernelAndFloorUpFront) {
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || entry.info.kernels != KernelSupport::GaussianOnly) continue;
    if (entry.info.id == "auto" || entry.info.id == "auto_exact") continue;
    const std::unique_ptr<Method> method = entry.create();
    // Asked in a format the method takes, so that the kernel (not the format) is what it refuses;
    // a float-only method stores no integer samples, so floor is no reason to refuse there.
    const PixelFormat format = entry.info.formats.contains(PixelFormat::Rgba8) ? PixelFormat::Rgba8 : PixelFormat::F32;
    ASSERT_TRUE(entry.info.formats.contains(format)) << entry.info.id << " takes neither rgba8 nor f32";
    FilterProblem problem{64, 48, format, {}};
    problem.params.kernel = FilterKernel::mask({1, 2, 1});
    expect_refused_up_front(*method, problem, "not a custom kernel", entry.info.id);
    if (entry.info.all_roundings || !is_integer(sample_type(format))) continue;
    problem.params = FilterParams{};
    problem.params.rounding = IntegerRounding::Floor;
    expect_refused_up_front(*method, problem, "rounded half up only", entry.info.id);
  }
}

}  // namespace
}  // namespace gausslab::gpu_test
