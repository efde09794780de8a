// Batches of device images through the public C++ interface on the GPU (skipped without one): a batch
// is one CUDA graph launch from its second call with the same arrays (api/src/batch_graph.hpp), its
// result byte for byte the images filtered one by one, on any stream, and its repeated calls allocate
// no device memory. Custom kernels on device memory run or are refused with a GPU method's reason.
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gausslab/gausslab.hpp"
#include "test_image.hpp"

namespace {

using api_test::have_gpu;
using api_test::TestImage;
using gausslab::PixelType;

// `count` random images of one shape in one device allocation, rows `pitch` and images `stride`
// bytes apart (both padded, so that neither is the packed size).
struct DeviceStack {
  int width, height, count;
  PixelType pixel;
  std::size_t pitch, stride;
  std::vector<TestImage> images;
  void* data = nullptr;

  DeviceStack(int w, int h, int n, PixelType p, std::uint32_t seed)
      : width(w), height(h), count(n), pixel(p), pitch(p.bytes() * w + 64), stride(pitch * h + 256) {
    EXPECT_EQ(cudaMalloc(&data, stride * n), cudaSuccess);
    EXPECT_EQ(cudaMemset(data, 0, stride * n), cudaSuccess);
    for (int i = 0; i < n; ++i) {
      images.emplace_back(w, h, p, seed + i);
      EXPECT_EQ(cudaMemcpy2D(image(i), pitch, images[i].bytes.data(), images[i].pitch(), images[i].pitch(), h,
                             cudaMemcpyHostToDevice),
                cudaSuccess);
    }
  }
  ~DeviceStack() { cudaFree(data); }
  char* image(int i) const { return static_cast<char*>(data) + stride * static_cast<std::size_t>(i); }
  gausslab::ImageRef ref() const { return {data, pitch, width, height, pixel, count, stride}; }
  gausslab::ImageRef one(int i) const { return {image(i), pitch, width, height, pixel}; }
  // Image i as packed host bytes.
  std::vector<unsigned char> download(int i) const {
    std::vector<unsigned char> bytes(pixel.bytes() * width * height);
    EXPECT_EQ(cudaMemcpy2D(bytes.data(), pixel.bytes() * width, image(i), pitch, pixel.bytes() * width, height,
                           cudaMemcpyDeviceToHost),
              cudaSuccess);
    return bytes;
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(PublicFilterGpuBatch, ABatchIsOneGraphLaunchEqualToTheImagesFilteredOneByOne) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  cudaStream_t first = nullptr, second = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking), cudaSuccess);
  struct Case {
    PixelType pixel;
    const char* method;
    gausslab::Border border;
  };
  for (const Case& c : {Case{PixelType::rgba8(), "auto", gausslab::Border::Reflect},
                        Case{PixelType::grey_f32(), "auto", gausslab::Border::Constant},
                        Case{PixelType::rgba8(), "separable_shared", gausslab::Border::Wrap},
                        Case{PixelType::grey_f32(), "fft", gausslab::Border::Mirror}}) {
    const int n = 7;
    DeviceStack src(131, 77, n, c.pixel, 40), out_a(131, 77, n, c.pixel, 0), out_b(131, 77, n, c.pixel, 0),
        single(131, 77, n, c.pixel, 0);
    gausslab::FilterOptions options{gausslab::Kernel::gaussian(2.5), c.border};
    options.method = c.method;
    options.accuracy = gausslab::Accuracy::Any;
    gausslab::Filter filter(options);
    for (int i = 0; i < n; ++i) filter.run_device(src.one(i), single.one(i), first);
    // New arrays: a loop; the same again: captured and launched; then launched from the kept graph, on
    // another stream too; a second destination: a loop, then a graph of its own; the first one kept.
    const struct {
      const DeviceStack* dst;
      cudaStream_t stream;
      const char* says;
    } calls[] = {{&out_a, first, "arrays not seen before"}, {&out_a, first, "one CUDA graph launch"},
                 {&out_a, second, "one CUDA graph launch"}, {&out_b, second, "arrays not seen before"},
                 {&out_b, first, "one CUDA graph launch"},  {&out_a, first, "one CUDA graph launch"}};
    for (const auto& call : calls) {
      ASSERT_EQ(cudaMemsetAsync(call.dst->data, 0, call.dst->stride * n, call.stream), cudaSuccess);
      filter.run_device(src.ref(), call.dst->ref(), call.stream);
      const std::string why = filter.last_choice().why;
      EXPECT_TRUE(contains(why, "batch of 7: ")) << why;
      if (!contains(why, "capture failed")) {
        EXPECT_TRUE(contains(why, call.says)) << c.method << ": " << why;
      }
      ASSERT_EQ(cudaStreamSynchronize(call.stream), cudaSuccess);
      for (int i = 0; i < n; ++i)
        EXPECT_EQ(call.dst->download(i), single.download(i))
            << c.method << " " << gausslab::to_string(c.pixel) << " image " << i << ": " << why;
    }
  }
  cudaStreamDestroy(first);
  cudaStreamDestroy(second);
}

TEST(PublicFilterGpuBatch, RepeatedBatchCallsAllocateNothing) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  DeviceStack src(512, 512, 64, PixelType::rgba8(), 7), dst(512, 512, 64, PixelType::rgba8(), 0);
  gausslab::Filter filter(gausslab::FilterOptions{gausslab::Kernel::gaussian(8.0)});
  filter.run_device(src.ref(), dst.ref());  // prepares; remembers the arrays
  filter.run_device(src.ref(), dst.ref());  // captures the graph
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::size_t free_before = 0, free_after = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  for (int i = 0; i < 10; ++i) filter.run_device(src.ref(), dst.ref());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_EQ(free_after, free_before) << filter.last_choice().why;
  EXPECT_TRUE(contains(filter.last_choice().why, "batch of 64: one CUDA graph launch")) << filter.last_choice().why;
}

TEST(PublicFilterGpuBatch, ACustomKernelOnDeviceMemoryRunsOrIsRefusedWithAGpuMethodsReason) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  DeviceStack src(64, 48, 1, PixelType::grey_f32(), 3), dst(64, 48, 1, PixelType::grey_f32(), 0);
  const gausslab::Kernel kernel = gausslab::Kernel::matrix_2d(3, 3, {1, -2, 0.5, 0.25, 4, -1, 2, 0, 1.5});
  gausslab::Filter device(gausslab::FilterOptions{kernel}), host(gausslab::FilterOptions{kernel});
  try {
    device.run_device(src.ref(), dst.ref());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    TestImage expected = TestImage::blank_like(src.images[0]);
    host.run_host(src.images[0].cref(), expected.ref());
    const std::vector<unsigned char> got = dst.download(0);
    const float* a = reinterpret_cast<const float*>(got.data());
    const float* b = reinterpret_cast<const float*>(expected.bytes.data());
    for (int i = 0; i < 64 * 48; ++i) EXPECT_NEAR(a[i], b[i], 1e-4) << i << " by " << device.last_choice().method;
  } catch (const gausslab::Refused& e) {
    EXPECT_TRUE(contains(e.what(), "no GPU method can filter")) << e.what();
    EXPECT_TRUE(contains(e.what(), "run_host")) << e.what();
  }
}

}  // namespace
