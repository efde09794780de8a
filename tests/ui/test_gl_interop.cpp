// The CUDA side of the render layer, on a GPU machine: the interop and staging paths of
// ResultPipeline with an OpenGL context from EGL (on the NVIDIA device when there is one). Uses two
// test "methods" without kernels (a device copy and a fill), so the paths are checked even before
// any real GPU method exists; then every registered GPU method that can run is sent through the
// pipeline and compared with run_on_host. Skips where there is no CUDA device (CI, the build machine).
#include <gtest/gtest.h>

#include <memory>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {
namespace {

// Copies the source into the output (cudaMemcpy2DAsync, no kernel).
class CopyMethod final : public GpuMethod {
 public:
  CopyMethod() : GpuMethod(MethodInfo{"test_copy", "test copy", "device copy", "", Backend::Cuda}) {}
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }
  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    check_views(src, dst);
    ScopedStage stage(timer, "copy", stream);
    GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, dst.pitch_bytes, src.data, src.pitch_bytes,
                                          static_cast<std::size_t>(src.width) * 4, static_cast<std::size_t>(src.height),
                                          cudaMemcpyDeviceToDevice, stream));
  }

 private:
  std::string method_limits(const FilterProblem&) const override { return {}; }
  void on_prepare(const FilterProblem&) override {}
};

// Fills every output byte with one value (cudaMemset2DAsync, no kernel).
class FillMethod final : public GpuMethod {
 public:
  explicit FillMethod(int value) : GpuMethod(MethodInfo{"test_fill", "test fill", "memset", "", Backend::Cuda}), value_(value) {}
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }
  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    check_views(src, dst);
    ScopedStage stage(timer, "fill", stream);
    GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(dst.data, dst.pitch_bytes, value_, static_cast<std::size_t>(dst.width) * 4,
                                          static_cast<std::size_t>(dst.height), stream));
  }

 private:
  std::string method_limits(const FilterProblem&) const override { return {}; }
  void on_prepare(const FilterProblem&) override {}
  int value_;
};

class GlInterop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const CudaDeviceStatus& device = cuda_device_status();
    if (!device.available) {
      skip_reason_ = "no CUDA device: " + device.reason;
      return;
    }
    try {
      surface_ = std::make_unique<EglOffscreen>(64, 64, device.device);
    } catch (const std::exception& error) {
      skip_reason_ = std::string("no OpenGL context through EGL: ") + error.what();
    }
  }
  static void TearDownTestSuite() { surface_.reset(); }
  void SetUp() override {
    if (!surface_) GTEST_SKIP() << skip_reason_;
  }

  static std::vector<std::string> names(const std::vector<StageTiming>& stages) {
    std::vector<std::string> result;
    for (const StageTiming& stage : stages) result.push_back(stage.name);
    return result;
  }

  static std::unique_ptr<EglOffscreen> surface_;
  static std::string skip_reason_;
};

std::unique_ptr<EglOffscreen> GlInterop::surface_;
std::string GlInterop::skip_reason_;

TEST_F(GlInterop, BothPathsDeliverTheMethodsOutputToTheTextures) {
  const bool nvidia_gl = surface_->info().renderer.find("NVIDIA") != std::string::npos;
  std::printf("GL renderer: %s (%s)\n", surface_->info().renderer.c_str(), surface_->info().platform.c_str());
  for (OutputPath requested : {OutputPath::Interop, OutputPath::Staging}) {
    SCOPED_TRACE(to_string(requested));
    ResultPipeline pipeline(requested);
    const ImageRgba8 source = make_random_rgba8(333, 217, 5);  // odd sizes: pitch differs from width
    pipeline.set_source(source);
    std::printf("requested %s: path %s (%s)\n", to_string(requested), to_string(pipeline.path()),
                pipeline.path_reason().c_str());
    if (requested == OutputPath::Staging) {
      EXPECT_EQ(pipeline.path(), OutputPath::Staging);
    } else if (nvidia_gl) {  // OpenGL on the NVIDIA GPU: registration must succeed
      EXPECT_EQ(pipeline.path(), OutputPath::Interop);
    }

    const FilterProblem problem{source.width(), source.height(), PixelFormat::Rgba8, FilterParams{}};
    CopyMethod copy;
    FillMethod fill(0x5A);
    copy.prepare(problem);
    fill.prepare(problem);
    StageTimer timer_a, timer_b;
    GlTimer gl_timer;
    for (int frame = 0; frame < 3; ++frame) {  // the same buffers, mapped again each frame
      timer_a.begin_frame();
      timer_b.begin_frame();
      gl_timer.begin_frame();
      const Rect crop{5, 7, 100, 50};
      const bool crop_scheduled = pipeline.process({ResultPipeline::Job{&copy, &timer_a}, ResultPipeline::Job{&fill, &timer_b}},
                                                   &gl_timer, frame == 0 ? &crop : nullptr);
      EXPECT_EQ(crop_scheduled, frame == 0);
      gl_timer.end_frame();
      timer_a.end_frame();
      timer_b.end_frame();
      if (frame == 0) {
        std::optional<ImageRgba8> crop_pixels = pipeline.take_crop(true);
        ASSERT_TRUE(crop_pixels.has_value());
        for (int y = 0; y < crop.height; ++y)
          for (int x = 0; x < crop.width; ++x) ASSERT_EQ(crop_pixels->at(x, y), source.at(crop.x + x, crop.y + y));
      }
    }
    EXPECT_EQ(pipeline.read_result(0).pixels(), source.pixels());
    const ImageRgba8 filled = pipeline.read_result(1);
    for (const Rgba8& p : filled.pixels()) ASSERT_EQ(p, (Rgba8{0x5A, 0x5A, 0x5A, 0x5A}));

    timer_a.flush();
    timer_b.flush();
    gl_timer.flush();
    const std::vector<std::string> a_stages = names(timer_a.stages());
    if (pipeline.path() == OutputPath::Interop) {
      EXPECT_EQ(a_stages, (std::vector<std::string>{"map", "copy", "unmap"}));
    } else {
      EXPECT_EQ(a_stages, (std::vector<std::string>{"copy", "download", "wait"}));
    }
    EXPECT_EQ(names(gl_timer.stages()), (std::vector<std::string>{"upload", "upload_b"}));
    for (const StageTiming& stage : timer_a.stages()) std::printf("  %s %.3f ms\n", stage.name.c_str(), stage.median_ms);

    // A new size: buffers are made (and registered) again.
    const ImageRgba8 smaller = make_random_rgba8(17, 9, 6);
    pipeline.set_source(smaller);
    const FilterProblem small_problem{17, 9, PixelFormat::Rgba8, FilterParams{}};
    copy.prepare(small_problem);
    pipeline.process({ResultPipeline::Job{&copy, nullptr}, ResultPipeline::Job{}}, nullptr, nullptr);
    EXPECT_EQ(pipeline.read_result(0).pixels(), smaller.pixels());
  }
}

TEST_F(GlInterop, CpuMethodsRunOnTheGpuPathsToo) {
  ResultPipeline pipeline(OutputPath::Interop);
  const ImageRgba8 source = make_random_rgba8(64, 48, 9);
  pipeline.set_source(source);
  FilterParams params;
  params.sigma = 2.5;
  std::unique_ptr<Method> method = find_method("cpu_openmp")->create();
  method->prepare(FilterProblem{64, 48, PixelFormat::Rgba8, params});
  pipeline.process({ResultPipeline::Job{method.get(), nullptr}, ResultPipeline::Job{}}, nullptr, nullptr);
  ImageRgba8 expected(64, 48);
  cpu_gaussian_filter(source.view(), expected.view(), params, CpuThreading::OpenMP);
  EXPECT_EQ(pipeline.read_result(0).pixels(), expected.pixels());
}

TEST_F(GlInterop, EveryRunnableGpuMethodShowsWhatRunOnHostComputes) {
  ResultPipeline pipeline(OutputPath::Interop);
  const ImageRgba8 source = make_random_rgba8(301, 203, 13);
  pipeline.set_source(source);
  FilterParams params;
  params.sigma = 3.0;
  const FilterProblem problem{source.width(), source.height(), PixelFormat::Rgba8, params};
  int compared = 0;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cuda) continue;
    std::unique_ptr<Method> method = entry.create();
    if (std::string reason = method->unsupported_reason(problem); !reason.empty()) {
      std::printf("  %s skipped: %s\n", entry.info.id.c_str(), reason.c_str());
      continue;
    }
    const ImageRgba8 expected = run_on_host(*method, source, params);
    method->prepare(problem);
    pipeline.process({ResultPipeline::Job{method.get(), nullptr}, ResultPipeline::Job{}}, nullptr, nullptr);
    EXPECT_EQ(pipeline.read_result(0).pixels(), expected.pixels()) << entry.info.id << " on the " << to_string(pipeline.path()) << " path";
    ++compared;
  }
  std::printf("  %d GPU methods compared on the %s path\n", compared, to_string(pipeline.path()));
}

}  // namespace
}  // namespace gausslab
