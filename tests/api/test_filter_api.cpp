// The public C++ interface (gausslab/gausslab.hpp) as a caller sees it: only that header, the
// library libgausslab.so, and core's float64 reference behind reference_bridge.hpp. Host images run
// everywhere (the CPU methods without a GPU); the device tests skip without one and run on the H200.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gausslab/gausslab.hpp"
#include "reference_bridge.hpp"
#include "test_image.hpp"

namespace {

using api_test::have_gpu;
using api_test::TestImage;
using gausslab::Border;
using gausslab::PixelType;
using gausslab::SampleType;

constexpr Border kBorders[] = {Border::Reflect, Border::Mirror, Border::Nearest, Border::Constant, Border::Wrap};

// The largest error of `result` against core's float64 reference, in levels for integer types and
// relative to the reference's peak for float types.
double error_against_reference(const TestImage& src, const TestImage& result, const gausslab::FilterOptions& o) {
  const std::vector<double> ref =
      api_test::reference(src.bytes.data(), src.width, src.height, static_cast<int>(src.pixel.sample), src.pixel.channels,
                          o.kernel.sigma, o.kernel.truncate, o.kernel.radius, static_cast<int>(o.border),
                          o.axes == gausslab::Axes::RowsOnly);
  double peak = 0, error = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    peak = std::max(peak, std::abs(ref[i]));
    error = std::max(error, std::abs(result.sample(i) - ref[i]));
  }
  const bool integer = src.pixel.sample == SampleType::U8 || src.pixel.sample == SampleType::U16;
  return integer ? error : error / peak;
}

double bound_for(PixelType pixel) {
  switch (pixel.sample) {
    case SampleType::U8:
    case SampleType::U16: return 0.51;
    case SampleType::F16: return 1e-5 + 1.0 / 2048;
    case SampleType::F32: return 1e-5;
  }
  return 0;
}


TEST(PublicFilter, HostImagesOfEveryTypeMatchTheFloat64ReferenceOnEveryBorder) {
  const PixelType types[] = {{SampleType::U8, 4}, {SampleType::U16, 1}, {SampleType::U16, 3}, {SampleType::F16, 3},
                             {SampleType::F32, 1}, {SampleType::F32, 2}};
  for (const PixelType pixel : types) {
    const TestImage src(37, 23, pixel, 7);
    for (const Border border : kBorders) {
      gausslab::FilterOptions options;
      options.kernel = gausslab::Kernel::gaussian(1.7);
      options.border = border;
      gausslab::Filter filter(options);
      TestImage dst = TestImage::blank_like(src);
      filter.run_host(src.cref(), dst.ref());
      EXPECT_LE(error_against_reference(src, dst, options), bound_for(pixel))
          << gausslab::to_string(pixel) << " " << gausslab::to_string(border) << " by " << filter.last_choice().method;
    }
  }
}

TEST(PublicFilter, SaysWhichMethodRanAndWhy) {
  gausslab::Filter filter(gausslab::FilterOptions{});
  EXPECT_TRUE(filter.last_choice().method.empty());
  const TestImage src(16, 9, PixelType::rgba8(), 1);
  TestImage dst = TestImage::blank_like(src);
  filter.run_host(src.cref(), dst.ref());
  const gausslab::Choice& choice = filter.last_choice();
  EXPECT_FALSE(choice.method.empty());
  EXPECT_NE(choice.method, "auto");
  EXPECT_EQ(choice.why.rfind("auto: ", 0), 0u) << choice.why;
  EXPECT_DOUBLE_EQ(choice.bound_levels, 0.51);
  if (!have_gpu()) {
    EXPECT_FALSE(choice.gpu);
    EXPECT_NE(choice.why.find("no CUDA device"), std::string::npos) << choice.why;
  }
  const gausslab::Choice asked = filter.choose(16, 9, PixelType::rgba8(), gausslab::Memory::Host);
  EXPECT_EQ(asked.method, choice.method);

  gausslab::FilterOptions named;
  named.method = "cpu_separable";
  gausslab::Filter one_thread(named);
  one_thread.run_host(src.cref(), dst.ref());
  EXPECT_EQ(one_thread.last_choice().method, "cpu_separable");
  EXPECT_EQ(one_thread.last_choice().why, "asked for");
}

TEST(PublicFilter, RadiusRowsOnlyAndTruncateAreTheReferencesOwn) {
  const TestImage src(41, 5, PixelType::grey_f32(), 3);
  for (const gausslab::Kernel& kernel : {gausslab::Kernel::gaussian_with_radius(3.0, 2), gausslab::Kernel::gaussian(2.5, 2.0)}) {
    for (const gausslab::Axes axes : {gausslab::Axes::Both, gausslab::Axes::RowsOnly}) {
      gausslab::FilterOptions options;
      options.kernel = kernel;
      options.axes = axes;
      gausslab::Filter filter(options);
      TestImage dst = TestImage::blank_like(src);
      filter.run_host(src.cref(), dst.ref());
      EXPECT_LE(error_against_reference(src, dst, options), 1e-5) << kernel.effective_radius();
    }
  }
  EXPECT_EQ(gausslab::Kernel::gaussian(2.5, 2.0).effective_radius(), 5);
  EXPECT_EQ(gausslab::Kernel::gaussian_with_radius(3.0, 2).effective_radius(), 2);
}

TEST(PublicFilter, ABatchIsEachImageFilteredOnItsOwn) {
  const int w = 19, h = 11, n = 3;
  const PixelType pixel{SampleType::U16, 2};
  const std::size_t pitch = pixel.bytes() * w + 6, stride = pitch * h + 10;  // padded rows and images
  std::vector<unsigned char> stack(stride * n), out(stride * n);
  std::vector<TestImage> images;
  for (int i = 0; i < n; ++i) {
    images.emplace_back(w, h, pixel, 100 + i);
    for (int y = 0; y < h; ++y) std::memcpy(&stack[i * stride + y * pitch], &images[i].bytes[y * images[i].pitch()], images[i].pitch());
  }
  gausslab::Filter filter(gausslab::FilterOptions{gausslab::Kernel::gaussian(1.2), Border::Wrap});
  filter.run_host({stack.data(), pitch, w, h, pixel, n, stride}, {out.data(), pitch, w, h, pixel, n, stride});
  for (int i = 0; i < n; ++i) {
    TestImage single = TestImage::blank_like(images[i]);
    filter.run_host(images[i].cref(), single.ref());
    for (int y = 0; y < h; ++y)
      EXPECT_EQ(std::memcmp(&out[i * stride + y * pitch], &single.bytes[y * single.pitch()], single.pitch()), 0)
          << "image " << i << " row " << y;
  }
}

TEST(PublicFilter, BadParametersAndImagesAreTypedErrorsThatSayWhy) {
  auto message_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const gausslab::Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_THROW(gausslab::Filter(gausslab::FilterOptions{gausslab::Kernel::gaussian(std::nan(""))}), gausslab::InvalidArgument);
  EXPECT_NE(message_of([] { gausslab::Filter(gausslab::FilterOptions{gausslab::Kernel::gaussian(500)}); }).find("sigma"),
            std::string::npos);
  gausslab::FilterOptions unknown;
  unknown.method = "fastest";
  EXPECT_NE(message_of([&] { gausslab::Filter{unknown}; }).find("separable_shared"), std::string::npos);

  gausslab::Filter filter(gausslab::FilterOptions{});
  TestImage a(8, 8, PixelType::rgba8(), 1), b(9, 8, PixelType::rgba8(), 1);
  EXPECT_THROW(filter.run_host(a.cref(), b.ref()), gausslab::InvalidArgument);
  gausslab::ImageRef short_pitch = a.ref();
  short_pitch.pitch_bytes = 8;
  EXPECT_NE(message_of([&] { filter.run_host(short_pitch, b.ref()); }).find("pitch"), std::string::npos);
  EXPECT_NE(message_of([&] { filter.run_host(a.cref(), a.ref()); }).find("overlap"), std::string::npos);
  gausslab::ImageRef five = a.ref();
  five.pixel.channels = 5;
  EXPECT_THROW(filter.run_host(five, five), gausslab::InvalidArgument);

  // Far too much work for the CPU methods: refused up front with the reason, before anything runs.
  gausslab::Filter wide(gausslab::FilterOptions{gausslab::Kernel::gaussian(200)});
  if (!have_gpu()) {
    EXPECT_NE(message_of([&] { (void)wide.choose(30000, 30000, PixelType::rgba8(), gausslab::Memory::Host); }).find("CPU"),
              std::string::npos);
  }
}

TEST(PublicFilter, WithoutAGpuDeviceCallsAreNoDeviceErrors) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is here";
  gausslab::Filter filter(gausslab::FilterOptions{});
  TestImage a(8, 8, PixelType::rgba8(), 1), b = TestImage::blank_like(a);
  EXPECT_THROW(filter.run_device(a.cref(), b.ref()), gausslab::NoDevice);
  EXPECT_THROW((void)filter.choose(8, 8, PixelType::rgba8(), gausslab::Memory::Device), gausslab::NoDevice);
  gausslab::FilterOptions gpu_method;
  gpu_method.method = "separable_shared";
  gausslab::Filter named(gpu_method);
  EXPECT_THROW(named.run_host(a.cref(), b.ref()), gausslab::NoDevice);
}

TEST(PublicFilter, MethodsListsTheRegistryWithWhatRunsHere) {
  const std::vector<gausslab::MethodDescription> list = gausslab::methods();
  ASSERT_GE(list.size(), 3u);
  EXPECT_EQ(list.front().id, "cpu_separable");
  EXPECT_TRUE(list.front().available);
  EXPECT_FALSE(list.front().gpu);
  EXPECT_EQ(list.front().pixel_types.size(), 16u);
  bool any_gpu = false;
  for (const auto& m : list) {
    if (!m.gpu) continue;
    any_gpu = true;
    EXPECT_EQ(m.available, have_gpu()) << m.id;
    if (!m.available) {
      EXPECT_FALSE(m.unavailable.empty()) << m.id;
    }
  }
  EXPECT_TRUE(any_gpu);
  EXPECT_NE(gausslab::version().find('+'), std::string::npos);
  EXPECT_NE(gausslab::build_report().find("CUDA runtime: "), std::string::npos);
}

// ---- on the GPU (skipped without one) --------------------------------------------------------

TEST(PublicFilterGpu, DeviceImagesOnTheCallersStreamMatchTheReference) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const PixelType pixel : {PixelType::rgba8(), PixelType::grey_f32()}) {
    const TestImage src(513, 257, pixel, 11);
    TestImage dst = TestImage::blank_like(src);
    void *d_src = nullptr, *d_dst = nullptr;
    std::size_t pitch = 0;
    ASSERT_EQ(cudaMallocPitch(&d_src, &pitch, src.pitch(), src.height), cudaSuccess);
    ASSERT_EQ(cudaMallocPitch(&d_dst, &pitch, src.pitch(), src.height), cudaSuccess);
    cudaMemcpy2D(d_src, pitch, src.bytes.data(), src.pitch(), src.pitch(), src.height, cudaMemcpyHostToDevice);
    for (const Border border : kBorders) {
      gausslab::FilterOptions options{gausslab::Kernel::gaussian(3.0), border};
      gausslab::Filter filter(options);
      filter.run_device({d_src, pitch, src.width, src.height, pixel}, {d_dst, pitch, src.width, src.height, pixel}, stream);
      filter.run_device({d_src, pitch, src.width, src.height, pixel}, {d_dst, pitch, src.width, src.height, pixel}, stream);
      ASSERT_EQ(cudaMemcpy2DAsync(dst.bytes.data(), dst.pitch(), d_dst, pitch, dst.pitch(), dst.height,
                                  cudaMemcpyDeviceToHost, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      EXPECT_TRUE(filter.last_choice().gpu);
      EXPECT_LE(error_against_reference(src, dst, options), bound_for(pixel))
          << gausslab::to_string(pixel) << " " << gausslab::to_string(border) << " by " << filter.last_choice().method;
    }
    cudaFree(d_src);
    cudaFree(d_dst);
  }
  cudaStreamDestroy(stream);
}

TEST(PublicFilterGpu, RepeatedRunsOfOneShapeAllocateNothing) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  const int w = 1031, h = 517;
  const PixelType pixel = PixelType::grey_f32();
  void *d_src = nullptr, *d_dst = nullptr;
  std::size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d_src, &pitch, w * pixel.bytes(), h), cudaSuccess);
  ASSERT_EQ(cudaMallocPitch(&d_dst, &pitch, w * pixel.bytes(), h), cudaSuccess);
  for (const char* method : {"auto", "fft", "separable_shared"}) {
    gausslab::FilterOptions options{gausslab::Kernel::gaussian(6.0)};
    options.method = method;
    options.accuracy = gausslab::Accuracy::Approximate;
    gausslab::Filter filter(options);
    filter.run_device({d_src, pitch, w, h, pixel}, {d_dst, pitch, w, h, pixel});  // prepares: plans, scratch
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::size_t free_before = 0, free_after = 0, total = 0;
    cudaMemGetInfo(&free_before, &total);
    for (int i = 0; i < 5; ++i) filter.run_device({d_src, pitch, w, h, pixel}, {d_dst, pitch, w, h, pixel});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemGetInfo(&free_after, &total);
    EXPECT_EQ(free_after, free_before) << method << " by " << filter.last_choice().method;
  }
  cudaFree(d_src);
  cudaFree(d_dst);
}

TEST(PublicFilterGpu, ANamedMethodLooserThanTheAccuracyClassIsRefusedUnlessAnyIsAsked) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  gausslab::FilterOptions options{gausslab::Kernel::gaussian(6.0)};
  options.method = "recursive";  // its bound at sigma 6: 2e-3 relative (float)
  EXPECT_THROW((void)gausslab::Filter(options).choose(512, 512, PixelType::grey_f32(), gausslab::Memory::Device),
               gausslab::Refused);
  options.accuracy = gausslab::Accuracy::Any;
  const gausslab::Choice choice = gausslab::Filter(options).choose(512, 512, PixelType::grey_f32(), gausslab::Memory::Device);
  EXPECT_EQ(choice.method, "recursive");
  EXPECT_GT(choice.bound_relative, 1e-5);
}

TEST(PublicFilterGpu, HostPointersToRunDeviceAreRefusedNotFaulted) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  gausslab::Filter filter(gausslab::FilterOptions{});
  TestImage a(8, 8, PixelType::rgba8(), 1), b = TestImage::blank_like(a);
  EXPECT_THROW(filter.run_device(a.cref(), b.ref()), gausslab::InvalidArgument);
}

}  // namespace
