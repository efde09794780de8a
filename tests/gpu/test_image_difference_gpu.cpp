// The A-against-B reduction on the GPU (cuda/image_difference.hpp) against the CPU implementation
// (core/difference_stats.hpp) on the same data: float planes, RGBA8 and the float64 reference's
// layout, odd sizes and sizes larger than one grid stride; the largest difference's location must
// agree exactly, the sums to double rounding.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gausslab/core/difference_stats.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/image_difference.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gpu_test_support.hpp"

namespace gausslab::gpu_test {
namespace {

class ImageDifferenceGpu : public GpuTest {};

DifferenceStats on_gpu(const DifferenceInput& d_input, cudaStream_t stream) {
  PinnedBuffer h_result(sizeof(DifferencePartial));
  cudaEvent_t done = nullptr;
  GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  DeviceBuffer scratch;
  image_difference_async(d_input, h_result.as<DifferencePartial>(), scratch, done, stream);
  GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done));
  const DifferenceStats stats = finish_difference(*h_result.as<DifferencePartial>(), d_input, 255.0);
  GAUSSLAB_CUDA_CHECK(cudaEventDestroy(done));
  return stats;
}

void expect_same(const DifferenceStats& gpu, const DifferenceStats& cpu) {
  for (const auto& [g, c] : {std::pair{gpu.unrounded, cpu.unrounded}, std::pair{gpu.rounded, cpu.rounded}}) {
    EXPECT_EQ(g.max_abs, c.max_abs);
    EXPECT_EQ(g.max_x, c.max_x);
    EXPECT_EQ(g.max_y, c.max_y);
    EXPECT_EQ(g.max_channel, c.max_channel);
    EXPECT_NEAR(g.mean_abs, c.mean_abs, 1e-11 * (1 + c.mean_abs));
    EXPECT_NEAR(g.rms, c.rms, 1e-11 * (1 + c.rms));
  }
  EXPECT_EQ(gpu.nonfinite, cpu.nonfinite);
}

TEST_F(ImageDifferenceGpu, FloatPlanesAgainstTheReferenceLayoutMatchTheCpu) {
  for (auto [w, h] : {std::pair{1, 1}, std::pair{333, 217}, std::pair{2049, 1031}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    std::mt19937 random(w);
    std::uniform_real_distribution<double> value(0.0, 255.0);
    const std::size_t n = static_cast<std::size_t>(w) * h * 4;
    std::vector<float> planes(n);
    std::vector<double> reference(n);
    for (std::size_t i = 0; i < n; ++i) {
      reference[i] = value(random);
      planes[i] = static_cast<float>(reference[i] + (i % 7 == 0 ? 1e-3 : 0.0));
    }
    DeviceBuffer d_planes(n * sizeof(float)), d_reference(n * sizeof(double));
    GAUSSLAB_CUDA_CHECK(cudaMemcpy(d_planes.data(), planes.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    GAUSSLAB_CUDA_CHECK(cudaMemcpy(d_reference.data(), reference.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    const std::size_t pitch = sizeof(float) * static_cast<std::size_t>(w);
    DifferenceOperand ref_host = interleaved_f64_operand(reference.data(), w, 4);
    DifferenceOperand ref_device = interleaved_f64_operand(d_reference.as<double>(), w, 4);
    for (bool keep : {false, true}) {
      ref_host.keep_unrounded = ref_device.keep_unrounded = keep;
      const DifferenceStats cpu =
          image_difference_host(DifferenceInput{planes_operand(planes.data(), pitch, h, OperandType::F32), ref_host, w, h, 4});
      const DifferenceStats gpu = on_gpu(
          DifferenceInput{planes_operand(d_planes.data(), pitch, h, OperandType::F32), ref_device, w, h, 4}, stream());
      expect_same(gpu, cpu);
    }
  }
}

TEST_F(ImageDifferenceGpu, AnImageAgainstItselfIsZero) {
  const ImageRgba8 picture = make_random_rgba8(1920, 1081, 3);
  DeviceImage d_picture;
  d_picture.resize(picture.width(), picture.height(), PixelFormat::Rgba8);
  d_picture.upload(picture.view(), stream());
  const DifferenceOperand operand = rgba8_operand(d_picture.view().data, d_picture.view().pitch_bytes);
  const DifferenceStats stats = on_gpu(DifferenceInput{operand, operand, picture.width(), picture.height(), 4}, stream());
  EXPECT_TRUE(stats.identical());
  EXPECT_EQ(stats.samples, 1920LL * 1081 * 4);
}

}  // namespace
}  // namespace gausslab::gpu_test
