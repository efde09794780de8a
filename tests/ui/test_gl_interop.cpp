// The CUDA side of the render layer, on a GPU machine: the interop and staging paths of
// ResultPipeline with an OpenGL context from EGL (on the NVIDIA device when there is one). Uses two
// test "methods" without kernels (a device copy and a fill), so the paths are checked even before
// any real GPU method exists; then every registered GPU method that can run is sent through the
// pipeline and compared with run_on_host. Skips where there is no CUDA device (CI, the build machine).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <utility>

#include "gausslab/core/cpu_filter.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "gausslab/render/egl_offscreen.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/texture.hpp"

namespace gausslab {
namespace {

// Copies the source into the output (cudaMemcpy2DAsync, no kernel).
class CopyMethod final : public GpuMethod {
 public:
  CopyMethod() : GpuMethod(MethodInfo{"test_copy", "test copy", "device copy", "", Backend::Cuda}) {}
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }

 private:
  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    ScopedStage stage(timer, "copy", stream);
    GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, dst.pitch_bytes, src.data, src.pitch_bytes,
                                          static_cast<std::size_t>(src.width) * 4, static_cast<std::size_t>(src.height),
                                          cudaMemcpyDeviceToDevice, stream));
  }
  std::string method_limits(const FilterProblem&) const override { return {}; }
  void on_prepare(const FilterProblem&) override {}
};

// Fills every output byte with one value (cudaMemset2DAsync, no kernel).
class FillMethod final : public GpuMethod {
 public:
  explicit FillMethod(int value) : GpuMethod(MethodInfo{"test_fill", "test fill", "memset", "", Backend::Cuda}), value_(value) {}
  void set_value(int value) { value_ = value; }
  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {}; }

 private:
  void run_kernels(const ConstImageView&, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    ScopedStage stage(timer, "fill", stream);
    GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(dst.data, dst.pitch_bytes, value_, static_cast<std::size_t>(dst.width) * 4,
                                          static_cast<std::size_t>(dst.height), stream));
  }
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
    for (int frame = 0; frame < 3; ++frame) {  // the same textures, mapped again each frame
      timer_a.begin_frame();
      timer_b.begin_frame();
      gl_timer.begin_frame();
      pipeline.process({ResultPipeline::Job{&copy, &timer_a}, ResultPipeline::Job{&fill, &timer_b}}, &gl_timer);
      gl_timer.end_frame();
      timer_a.end_frame();
      timer_b.end_frame();
    }
    EXPECT_EQ(pipeline.read_result(0).pixels(), source.pixels());
    const ImageRgba8 filled = pipeline.read_result(1);
    for (const Rgba8& p : filled.pixels()) ASSERT_EQ(p, (Rgba8{0x5A, 0x5A, 0x5A, 0x5A}));

    timer_a.flush();
    timer_b.flush();
    gl_timer.flush();
    const std::vector<std::string> a_stages = names(timer_a.stages());
    if (pipeline.path() == OutputPath::Interop) {
      // After the first frame every frame's textures were mapped ahead, at the end of the one
      // before; CUDA puts the results into them, GL uploads nothing.
      EXPECT_EQ(a_stages, (std::vector<std::string>{"copy", "map_wait", "to_texture", "unmap", "map_next"}));
      EXPECT_TRUE(gl_timer.stages().empty());
    } else {
      EXPECT_EQ(a_stages, (std::vector<std::string>{"copy", "download", "wait"}));
      EXPECT_EQ(names(gl_timer.stages()), (std::vector<std::string>{"upload", "upload_b"}));
    }
    for (const StageTiming& stage : timer_a.stages()) std::printf("  %s %.3f ms\n", stage.name.c_str(), stage.median_ms);

    // A result made on the device elsewhere (a sliced run's) is shown from where it is.
    pipeline.show_device_result(1, pipeline.device_source(), nullptr);
    EXPECT_EQ(pipeline.read_result(1).pixels(), source.pixels());

    // A new size: textures are made (and registered) again.
    const ImageRgba8 smaller = make_random_rgba8(17, 9, 6);
    pipeline.set_source(smaller);
    const FilterProblem small_problem{17, 9, PixelFormat::Rgba8, FilterParams{}};
    copy.prepare(small_problem);
    pipeline.process({ResultPipeline::Job{&copy, nullptr}, ResultPipeline::Job{}}, nullptr);
    EXPECT_EQ(pipeline.read_result(0).pixels(), smaller.pixels());
  }
}

// Every frame's result must be in the texture drawn, whichever texture of the ring it went into,
// also when B runs only in some frames (its next texture stays mapped ahead meanwhile), when a host
// result is shown between GPU results, and across a new picture of the same size and of another
// size (textures mapped ahead are handed back first).
TEST_F(GlInterop, EveryFrameReachesTheTextureWithTheTexturesInTurn) {
  const ImageRgba8 source = make_random_rgba8(333, 217, 5);
  const FilterProblem problem{source.width(), source.height(), PixelFormat::Rgba8, FilterParams{}};
  for (int buffers : {1, 2, 3}) {
    SCOPED_TRACE(std::to_string(buffers) + " textures per slot");
    ResultPipeline pipeline(OutputPath::Interop, buffers);
    pipeline.set_source(source);
    if (pipeline.path() != OutputPath::Interop) GTEST_SKIP() << pipeline.path_reason();
    FillMethod fill_a(0), fill_b(0);
    fill_a.prepare(problem);
    fill_b.prepare(problem);
    StageTimer timer;
    std::set<unsigned> shown_a;  // the textures A was drawn from
    for (int frame = 0; frame < 9; ++frame) {
      const int value_a = 1 + 7 * frame, value_b = 250 - 3 * frame;
      const bool run_b = frame % 3 != 1;
      fill_a.set_value(value_a);
      fill_b.set_value(value_b);
      timer.begin_frame();
      pipeline.process({ResultPipeline::Job{&fill_a, &timer}, ResultPipeline::Job{run_b ? &fill_b : nullptr, nullptr}},
                       nullptr);
      timer.end_frame();
      const auto a_value = static_cast<unsigned char>(value_a), b_value = static_cast<unsigned char>(value_b);
      shown_a.insert(pipeline.result_texture(0));
      const ImageRgba8 a = pipeline.read_result(0);
      ASSERT_TRUE(std::all_of(a.pixels().begin(), a.pixels().end(),
                              [&](const Rgba8& p) { return p == Rgba8{a_value, a_value, a_value, a_value}; }))
          << "frame " << frame << ": A";
      if (run_b) {
        const ImageRgba8 b = pipeline.read_result(1);
        ASSERT_TRUE(std::all_of(b.pixels().begin(), b.pixels().end(),
                                [&](const Rgba8& p) { return p == Rgba8{b_value, b_value, b_value, b_value}; }))
            << "frame " << frame << ": B";
      }
      if (frame == 4) {  // a host result (a CPU method's on its worker) between GPU results
        const auto host = std::make_shared<const ImageRgba8>(make_random_rgba8(333, 217, 40));
        pipeline.show_host_result(0, host, nullptr);
        ASSERT_FALSE(pipeline.host_upload_pending(0));
        EXPECT_EQ(pipeline.read_result(0).pixels(), host->pixels());
      }
    }
    timer.flush();
    EXPECT_EQ(shown_a.size(), static_cast<std::size_t>(buffers));
    std::vector<std::string> expected_stages{"fill", "map_wait", "to_texture", "unmap", "map_next"};
    if (buffers == 1) expected_stages = {"fill", "map", "to_texture", "unmap"};  // nothing to map ahead
    EXPECT_EQ(names(timer.stages()), expected_stages);

    CopyMethod copy;
    copy.prepare(problem);
    const ImageRgba8 same_size = make_random_rgba8(333, 217, 8);
    pipeline.set_source(same_size);
    pipeline.process({ResultPipeline::Job{&copy, nullptr}, ResultPipeline::Job{}}, nullptr);
    EXPECT_EQ(pipeline.read_result(0).pixels(), same_size.pixels());
    const ImageRgba8 smaller = make_random_rgba8(64, 31, 9);
    pipeline.set_source(smaller);
    copy.prepare(FilterProblem{64, 31, PixelFormat::Rgba8, FilterParams{}});
    for (int frame = 0; frame < 2; ++frame) {
      pipeline.process({ResultPipeline::Job{&copy, nullptr}, ResultPipeline::Job{}}, nullptr);
      EXPECT_EQ(pipeline.read_result(0).pixels(), smaller.pixels());
    }
    EXPECT_EQ(pipeline.path(), OutputPath::Interop);
  }
}

// The copy into the texture at the viewer's large sizes keeps every pixel; its GPU time (stage
// "to_texture") is printed beside, not asserted.
TEST_F(GlInterop, LargeResultsReachTheTextureWhole) {
  for (const auto& [width, height] : {std::pair{3840, 2160}, std::pair{4096, 4096}, std::pair{3837, 2161}}) {
    ResultPipeline pipeline(OutputPath::Interop);
    const ImageRgba8 source = make_random_rgba8(width, height, 3);
    pipeline.set_source(source);
    if (pipeline.path() != OutputPath::Interop) GTEST_SKIP() << pipeline.path_reason();
    CopyMethod copy;
    copy.prepare(FilterProblem{width, height, PixelFormat::Rgba8, FilterParams{}});
    StageTimer timer;
    for (int frame = 0; frame < 30; ++frame) {
      timer.begin_frame();
      pipeline.process({ResultPipeline::Job{&copy, &timer}, ResultPipeline::Job{}}, nullptr);
      timer.end_frame();
    }
    EXPECT_EQ(pipeline.read_result(0).pixels(), source.pixels()) << width << "x" << height;
    timer.flush();
    std::printf("  %dx%d:", width, height);
    for (const StageTiming& stage : timer.stages()) std::printf(" %s %.3f ms", stage.name.c_str(), stage.median_ms);
    std::printf("\n");
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
  pipeline.process({ResultPipeline::Job{method.get(), nullptr}, ResultPipeline::Job{}}, nullptr);
  ImageRgba8 expected(64, 48);
  cpu_gaussian_filter(source.view(), expected.view(), params, CpuThreading::OpenMP);
  EXPECT_EQ(pipeline.read_result(0).pixels(), expected.pixels());
}

TEST_F(GlInterop, EveryRunnableGpuMethodShowsWhatRunOnHostComputes) {
  // 301 and 320 pixels wide: an odd width and one whose rows are a multiple of 64 bytes; both are
  // written into the pipeline's pitched device image, then copied into the texture.
  for (int width : {301, 320}) {
    ResultPipeline pipeline(OutputPath::Interop);
    const ImageRgba8 source = make_random_rgba8(width, 203, 13);
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
      pipeline.process({ResultPipeline::Job{method.get(), nullptr}, ResultPipeline::Job{}}, nullptr);
      EXPECT_EQ(pipeline.read_result(0).pixels(), expected.pixels())
          << entry.info.id << " on the " << to_string(pipeline.path()) << " path, " << width << " pixels wide";
      ++compared;
    }
    std::printf("  %d GPU methods compared on the %s path, %d pixels wide\n", compared, to_string(pipeline.path()),
                width);
  }
}

}  // namespace
}  // namespace gausslab
