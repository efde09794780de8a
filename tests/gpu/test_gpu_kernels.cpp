// Issue 13's techniques on the GPU, each against its exact CPU counterpart:
//   - 1D signals: every GPU method that filters along x only, at edge lengths (1, 2, the tile ± 1,
//     primes, 2^20 + 3, 2^24) and every border, within its bound against the float64 reference;
//     tiled_1d also bit for bit equal to the plain CPU loop of its own arithmetic;
//   - lut_2d: bit for bit equal to the plain CPU loop of its table sums;
//   - the compile-time small-radius kernels: bit for bit equal to the run-time loop (create_looped);
//   - 2×2 pooling: the separate kernel and the fused pass bit for bit equal to the CPU reference
//     pooling of the method's own blurred result, at odd sizes, both formats, max and avg.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gausslab/core/accuracy.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/core/reference.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/pooling.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gpu_test_support.hpp"
#include "kit/params.hpp"
#include "lut_2d_common.cuh"
#include "tiled_1d_common.cuh"

namespace gausslab::gpu_test {
namespace {

using test::signal_params;

ImageF32 random_signal(int length, std::uint32_t seed) {
  ImageF32 signal(length, 1);
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(1.0f, 3.0f);
  for (int i = 0; i < length; ++i) signal.data()[i] = noise(rng);
  return signal;
}

// tiled_1d's arithmetic as a plain loop (groups of 8 taps, fmaf ascending, group sums added).
std::vector<float> tiled_plain_loop(const ImageF32& signal, const FilterParams& params) {
  const int n = signal.width(), r = params.radius(), taps = 2 * r + 1;
  const std::vector<float> w = gaussian_weights_f32(params.sigma, r);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (int x = 0; x < n; ++x) {
    float total = 0.0f;
    for (int k0 = 0; k0 < taps; k0 += tiled1d::P::kOutputs) {
      float part = 0.0f;
      for (int k = k0; k < k0 + tiled1d::P::kOutputs && k < taps; ++k) {
        const int s = border_index(x + k - r, n, params.border);
        part = std::fmaf(w[static_cast<std::size_t>(k)], s >= 0 ? signal.data()[s] : 0.0f, part);
      }
      total += part;
    }
    out[static_cast<std::size_t>(x)] = total;
  }
  return out;
}

class GpuSignals : public GpuTest {};

TEST_F(GpuSignals, EveryOneAxisMethodMeetsItsBoundAtEdgeLengthsInEveryBorder) {
  int tested = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || !entry.info.filters_along_x_only) continue;
    const std::unique_ptr<Method> method = entry.create();
    for (const int length : {1, 2, 3, 2047, 2048, 2049, 7919, (1 << 20) + 3})
      for (const double sigma : {0.1, 0.7, 5.0, 16.0})
        for (const BorderMode border : kAllBorderModes) {
          const FilterParams params = signal_params(sigma, border);
          const FilterProblem problem{length, 1, PixelFormat::F32, params};
          const std::string where = entry.info.id + " length " + std::to_string(length) + ", " + describe(params);
          if (const std::string reason = method->unsupported_reason(problem); !reason.empty()) {
            ADD_FAILURE() << where << " refused: " << reason;
            continue;
          }
          const ImageF32 signal = random_signal(length, static_cast<std::uint32_t>(length));
          RunOptions options;
          options.stream = stream();
          options.poison_output = true;
          const ImageF32 result = run_on_host(*method, signal, params, options);
          const AccuracyStats stats = compare_with_reference(result.view(), reference_gaussian(signal.view(), params), 1.0);
          EXPECT_EQ(stats.nonfinite, 0u) << where;
          EXPECT_LE(stats.max_relative_error, method->accuracy_bound(problem).max_relative_error)
              << where << ": " << describe(stats);
          if (entry.info.id == "tiled_1d") {
            EXPECT_EQ(std::memcmp(result.data(), tiled_plain_loop(signal, params).data(), length * sizeof(float)), 0)
                << where << ": differs from the plain loop of its arithmetic";
          }
          ++tested;
        }
  }
  EXPECT_GT(tested, 0) << "no GPU method filters along x only";
}

TEST_F(GpuSignals, Tiled1dTakesLongSignalsLargeRadiiAndUnalignedViews) {
  const MethodEntry* entry = find_method("tiled_1d");
  ASSERT_NE(entry, nullptr);
  const std::unique_ptr<Method> method = entry->create();
  RunOptions options;
  options.stream = stream();
  options.poison_output = true;
  // 2^24 samples (8192 tiles) at radius 20; radius 2000 (weights in global memory) on short signals.
  const ImageF32 long_signal = random_signal(1 << 24, 7u);
  const FilterParams params = signal_params(5.0, BorderMode::Mirror);
  const ImageF32 long_result = run_on_host(*method, long_signal, params, options);
  EXPECT_EQ(std::memcmp(long_result.data(), tiled_plain_loop(long_signal, params).data(), (1u << 24) * sizeof(float)), 0);
  for (const int length : {5, 3001})
    for (const BorderMode border : kAllBorderModes) {
      const ImageF32 signal = random_signal(length, 3u);
      const FilterParams wide = signal_params(200.0, border, 2000);
      const ImageF32 result = run_on_host(*method, signal, wide, options);
      EXPECT_EQ(std::memcmp(result.data(), tiled_plain_loop(signal, wide).data(), length * sizeof(float)), 0)
          << length << " " << to_string(border);
    }
  // A view one float past a 16-byte boundary takes the sample-by-sample path: same bits.
  const int length = 5000;
  const ImageF32 signal = random_signal(length + 1, 9u);
  DeviceImage d_src(length + 1, 1, PixelFormat::F32), d_dst(length + 1, 1, PixelFormat::F32);
  d_src.upload(signal.view(), stream());
  const ImageView src_view = d_src.view(), dst_view = d_dst.view();
  const ConstImageView src_shifted(static_cast<const float*>(src_view.data) + 1, length, 1, src_view.pitch_bytes,
                                   PixelFormat::F32);
  const ImageView dst_shifted{static_cast<float*>(dst_view.data) + 1, length, 1, dst_view.pitch_bytes, PixelFormat::F32};
  const FilterParams shifted_params = signal_params(3.0, BorderMode::Reflect);
  method->prepare(FilterProblem{length, 1, PixelFormat::F32, shifted_params});
  method->run(src_shifted, dst_shifted, nullptr, stream());
  ImageF32 out(length + 1, 1);
  d_dst.download(out.view(), stream());
  ASSERT_EQ(cudaStreamSynchronize(stream()), cudaSuccess);
  ImageF32 tail(length, 1);
  std::memcpy(tail.data(), signal.data() + 1, length * sizeof(float));
  EXPECT_EQ(std::memcmp(out.data() + 1, tiled_plain_loop(tail, shifted_params).data(), length * sizeof(float)), 0);
}

TEST_F(GpuSignals, TwoInstancesWithDifferentRadiiAlternateOnOneStream) {
  // Radius 20 (weights in the kernel parameters) and 300 (tiled_1d: in global memory).
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda || !entry.info.filters_along_x_only) continue;
    const std::unique_ptr<Method> a = entry.create(), b = entry.create();
    const FilterParams params_a = signal_params(5.0, BorderMode::Reflect);
    const FilterParams params_b = signal_params(100.0, BorderMode::Wrap, 300);
    const ImageF32 src_a = random_signal(5000, 1u), src_b = random_signal(7000, 2u);
    a->prepare(FilterProblem{5000, 1, PixelFormat::F32, params_a});
    b->prepare(FilterProblem{7000, 1, PixelFormat::F32, params_b});
    DeviceImage d_a(5000, 1, PixelFormat::F32), d_b(7000, 1, PixelFormat::F32);
    d_a.upload(src_a.view(), stream());
    d_b.upload(src_b.view(), stream());
    DeviceImage out[4] = {{5000, 1, PixelFormat::F32}, {7000, 1, PixelFormat::F32}, {5000, 1, PixelFormat::F32},
                          {7000, 1, PixelFormat::F32}};
    for (int i = 0; i < 4; ++i) (i % 2 ? b : a)->run((i % 2 ? d_b : d_a).view(), out[i].view(), nullptr, stream());
    for (int i = 0; i < 4; ++i) {
      const bool is_a = i % 2 == 0;
      ImageF32 host(is_a ? 5000 : 7000, 1);
      out[i].download(host.view(), stream());
      ASSERT_EQ(cudaStreamSynchronize(stream()), cudaSuccess);
      const FilterParams& params = is_a ? params_a : params_b;
      const AccuracyStats stats =
          compare_with_reference(host.view(), reference_gaussian((is_a ? src_a : src_b).view(), params), 1.0);
      EXPECT_LE(stats.max_relative_error, (is_a ? a : b)->accuracy_bound(FilterProblem{host.width(), 1, PixelFormat::F32,
                                                                                          params})
                                              .max_relative_error)
          << entry.info.id << " instance " << (is_a ? "A" : "B") << " run " << i / 2 + 1 << ": " << describe(stats);
    }
  }
}

class GpuLut : public GpuTest {};

TEST_F(GpuLut, Lut2dEqualsThePlainLoopOfItsTableSumsBitForBit) {
  const MethodEntry* entry = find_method("lut_2d");
  ASSERT_NE(entry, nullptr);
  const std::unique_ptr<Method> method = entry->create();
  RunOptions options;
  options.stream = stream();
  options.poison_output = true;
  for (const auto& size : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {33, 9}, {257, 131}, {641, 359}})
    for (const int radius : {0, 1, 2, 3, 8})
      for (const BorderMode border : kAllBorderModes) {
        FilterParams params;
        params.sigma = radius > 0 ? radius / 3.0 : 0.3;
        params.fixed_radius = radius;
        params.border = border;
        const ImageRgba8 src = make_random_rgba8(size.first, size.second, static_cast<std::uint32_t>(radius + 1));
        const ImageRgba8 result = run_on_host(*method, src, params, options);
        // The CPU loop: lut_output over a plain table, pixel by pixel.
        ImageRgba8 expected(src.width(), src.height());
        const lut2d::LutArgs args{src.view(), expected.view(), radius, border};
        const std::vector<float> table = lut2d::make_table(params.sigma, radius);
        const std::vector<int> rows = lut2d::make_tap_rows(radius);
        for (int y = 0; y < src.height(); ++y)
          for (int x = 0; x < src.width(); ++x) {
            const uchar4 p = lut2d::to_rgba8(lut2d::lut_output(args, table.data(), rows.data(), x, y));
            expected.at(x, y) = Rgba8{p.x, p.y, p.z, p.w};
          }
        EXPECT_EQ(result.pixels(), expected.pixels())
            << size.first << "x" << size.second << ", " << describe(params);
      }
}

class GpuUnrolled : public GpuTest {};

// a and b give the same pixels, bit for bit, on a random image of that size and format.
void expect_same_pixels(Method& a, Method& b, PixelFormat format, int width, int height, const FilterParams& params,
                        const RunOptions& options, const std::string& where) {
  if (format == PixelFormat::Rgba8) {
    const ImageRgba8 src = make_random_rgba8(width, height, 5u);
    EXPECT_EQ(run_on_host(a, src, params, options).pixels(), run_on_host(b, src, params, options).pixels()) << where;
  } else {
    const ImageF32 src = make_random_f32(width, height, 5u);
    EXPECT_EQ(run_on_host(a, src, params, options).pixels(), run_on_host(b, src, params, options).pixels()) << where;
  }
}

TEST_F(GpuUnrolled, CompileTimeKernelsEqualTheRunTimeLoopBitForBit) {
  int compared = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (!entry.create_looped) continue;
    const std::unique_ptr<Method> unrolled = entry.create(), looped = entry.create_looped();
    RunOptions options;
    options.stream = stream();
    for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
      for (const auto& size : std::vector<std::pair<int, int>>{{1, 1}, {5, 3}, {97, 61}, {1024, 769}})
        for (const int radius : {0, 1, 2, 3, 4})
          for (const BorderMode border : kAllBorderModes) {
            FilterParams params;
            params.sigma = radius > 0 ? radius / 3.0 : 0.3;
            params.fixed_radius = radius;
            params.border = border;
            const std::string where = entry.info.id + " " + to_string(format) + " " + std::to_string(size.first) + "x" +
                                      std::to_string(size.second) + ", " + describe(params);
            expect_same_pixels(*unrolled, *looped, format, size.first, size.second, params, options, where);
            ++compared;
          }
  }
  EXPECT_GT(compared, 0) << "no method has compile-time small-radius kernels";
}

// A worker's instance (MethodEntry::create_for_worker: naive_2d with its weights in global memory)
// gives the viewer's instance's results bit for bit, at the compile-time radii and beyond, while the
// two alternate (each run re-uploads nothing the other needs).
TEST_F(GpuUnrolled, WorkerInstancesEqualTheUsualOnesBitForBit) {
  int compared = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (!entry.create_for_worker) continue;
    const std::unique_ptr<Method> usual = entry.create(), worker = entry.create_for_worker();
    RunOptions options;
    options.stream = stream();
    for (const PixelFormat format : {PixelFormat::Rgba8, PixelFormat::F32})
      for (const int radius : {1, 3, 4, 17, 63, 64})
        for (const BorderMode border : {BorderMode::Reflect, BorderMode::Constant, BorderMode::Wrap}) {
          FilterParams params;
          params.sigma = radius / 3.0;
          params.fixed_radius = radius;
          params.border = border;
          expect_same_pixels(*usual, *worker, format, 97, 61, params, options,
                             entry.info.id + " " + to_string(format) + ", " + describe(params));
          ++compared;
        }
  }
  EXPECT_GT(compared, 0) << "no method has a worker instance";
}

class GpuPooling : public GpuTest {};

template <class Pixel>
void expect_pooling_matches(Method& method, const Image<Pixel>& src, const FilterParams& params, PoolMode mode,
                            cudaStream_t stream, const std::string& where) {
  RunOptions options;
  options.stream = stream;
  const Image<Pixel> blurred = run_on_host(method, src, params, options);
  const Image<Pixel> expected = pool_2x2(blurred, mode);
  // Separate kernel and, where the method has one, the fused pass.
  method.prepare(FilterProblem{src.width(), src.height(), Image<Pixel>::format(), params});
  DeviceImage d_src(src.width(), src.height(), Image<Pixel>::format());
  DeviceImage d_full(src.width(), src.height(), Image<Pixel>::format());
  DeviceImage d_pooled(pooled_side(src.width()), pooled_side(src.height()), Image<Pixel>::format());
  d_src.upload(src.view(), stream);
  for (const PoolPath path : {PoolPath::Separate, PoolPath::Fused}) {
    const ImageView pooled_view = d_pooled.view();
    ASSERT_EQ(cudaMemset2DAsync(pooled_view.data, pooled_view.pitch_bytes, 0xFF,
                                static_cast<std::size_t>(pooled_view.width) * sizeof(Pixel),
                                static_cast<std::size_t>(pooled_view.height), stream),
              cudaSuccess);
    const PoolPath taken = run_and_pool(method, d_src.view(), d_full.view(), d_pooled.view(), mode, nullptr, stream, path);
    Image<Pixel> pooled(pooled_side(src.width()), pooled_side(src.height()));
    d_pooled.download(pooled.view(), stream);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(pooled.pixels() == expected.pixels())
        << where << (taken == PoolPath::Fused ? ", fused" : ", separate") << ": differs from pooling the blur on the CPU";
    if (path == PoolPath::Fused) {
      EXPECT_EQ(taken == PoolPath::Fused, fused_pooling(method) != nullptr) << where;
    }
  }
}

TEST_F(GpuPooling, SeparateAndFusedEqualTheCpuReferenceOfTheMethodsOwnBlur) {
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda) continue;
    const std::unique_ptr<Method> method = entry.create();
    EXPECT_EQ(entry.fuses_pooling, fused_pooling(*method) != nullptr) << entry.info.id;
    for (const auto& size : std::vector<std::pair<int, int>>{{2, 2}, {3, 5}, {65, 33}, {129, 64}, {1001, 999}})
      for (const PoolMode mode : {PoolMode::Max2x2, PoolMode::Avg2x2})
        for (const BorderMode border : {BorderMode::Reflect, BorderMode::Constant}) {
          FilterParams params;
          params.sigma = 1.0;
          params.border = border;
          const std::string where = entry.info.id + " " + std::to_string(size.first) + "x" + std::to_string(size.second) +
                                    " " + to_string(mode) + " " + to_string(border);
          // A format the method refuses is skipped: its refusals are tested elsewhere (lut_2d: RGBA8 only).
          auto accepts = [&](PixelFormat format) {
            return method->unsupported_reason(FilterProblem{size.first, size.second, format, params}).empty();
          };
          if (accepts(PixelFormat::Rgba8))
            expect_pooling_matches(*method, make_random_rgba8(size.first, size.second, 3u), params, mode, stream(),
                                   where + " rgba8");
          if (accepts(PixelFormat::F32))
            expect_pooling_matches(*method, make_random_f32(size.first, size.second, 3u), params, mode, stream(),
                                   where + " f32");
        }
  }
}

TEST_F(GpuPooling, TheSeparateKernelRefusesWhatItCannotPool) {
  DeviceImage thin(1, 9, PixelFormat::Rgba8), out(1, 4, PixelFormat::Rgba8);
  EXPECT_THROW(pool_2x2_on_device(thin.view(), out.view(), PoolMode::Max2x2, stream()), std::invalid_argument);
  DeviceImage square(4, 4, PixelFormat::F32), wrong(3, 2, PixelFormat::F32);
  EXPECT_THROW(pool_2x2_on_device(square.view(), wrong.view(), PoolMode::Avg2x2, stream()), std::invalid_argument);
  DeviceImage right(2, 2, PixelFormat::F32);
  EXPECT_THROW(pool_2x2_on_device(square.view(), right.view(), PoolMode::None, stream()), std::invalid_argument);
}

}  // namespace
}  // namespace gausslab::gpu_test
