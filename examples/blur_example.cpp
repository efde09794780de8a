// gausslab from C++: blur a picture held in host memory, and the same on device memory on a CUDA
// stream of our own where there is a GPU; then a custom kernel (a 3×3 table divided by its sum,
// stored by floor). With --check, compares each Gaussian result with a float64 Gaussian computed
// here (the same weights and 'reflect' border as scipy.ndimage), the table's with integer sums, and
// exits 1 when one is outside the bound the chosen method promises (the table's: exact).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <gausslab/gausslab.hpp>

namespace {

// scipy.ndimage's 'reflect' (d c b a | a b c d | d c b a) for any offset.
int reflect(int i, int n) {
  const int period = 2 * n;
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - 1 - m;
}

// The float64 Gaussian of an interleaved image: the rows pass, then the columns pass.
std::vector<double> reference(const std::vector<std::uint8_t>& image, int width, int height, int channels, double sigma) {
  const int radius = static_cast<int>(std::floor(4.0 * sigma + 0.5));
  std::vector<double> weights(2 * radius + 1);
  double sum = 0;
  for (int k = -radius; k <= radius; ++k) sum += weights[k + radius] = std::exp(-0.5 * k * k / (sigma * sigma));
  for (double& w : weights) w /= sum;
  std::vector<double> rows(image.size()), out(image.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        double acc = 0;
        for (int k = -radius; k <= radius; ++k) acc += weights[k + radius] * image[(y * width + reflect(x + k, width)) * channels + c];
        rows[(y * width + x) * channels + c] = acc;
      }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        double acc = 0;
        for (int k = -radius; k <= radius; ++k) acc += weights[k + radius] * rows[(reflect(y + k, height) * width + x) * channels + c];
        out[(y * width + x) * channels + c] = acc;
      }
  return out;
}

// The 3×3 table 1 2 1 / 2 4 2 / 1 2 1 over each pixel's neighbourhood ('reflect'), divided by 16 and
// floored: integer arithmetic, so the expected bytes are exact.
std::vector<std::uint8_t> table_floor(const std::vector<std::uint8_t>& image, int width, int height, int channels) {
  static const int table[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  std::vector<std::uint8_t> out(image.size());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        int sum = 0;
        for (int j = -1; j <= 1; ++j)
          for (int i = -1; i <= 1; ++i)
            sum += table[j + 1][i + 1] * image[(reflect(y + j, height) * width + reflect(x + i, width)) * channels + c];
        out[(y * width + x) * channels + c] = static_cast<std::uint8_t>(sum / 16);
      }
  return out;
}

double max_error(const std::vector<std::uint8_t>& result, const std::vector<double>& truth) {
  double error = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) error = std::fmax(error, std::fabs(result[i] - truth[i]));
  return error;
}

}  // namespace

int main(int argc, char** argv) {
  const bool check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  const int width = 301, height = 203, channels = 4;
  const double sigma = 2.5;
  std::vector<std::uint8_t> picture(static_cast<std::size_t>(width) * height * channels), blurred(picture.size());
  std::mt19937 random(42);
  for (std::uint8_t& v : picture) v = static_cast<std::uint8_t>(random());
  const std::vector<double> truth = reference(picture, width, height, channels, sigma);
  const gausslab::PixelType rgba8 = gausslab::PixelType::rgba8();
  const std::size_t pitch = rgba8.bytes() * width;
  int status = 0;

  try {
    std::printf("%s\n", gausslab::version().c_str());
    gausslab::Filter blur(gausslab::FilterOptions{gausslab::Kernel::gaussian(sigma), gausslab::Border::Reflect});

    // Host memory: on the GPU with a copy where there is one, else on the CPU.
    blur.run_host({picture.data(), pitch, width, height, rgba8}, {blurred.data(), pitch, width, height, rgba8});
    const gausslab::Choice& host = blur.last_choice();
    const double host_error = max_error(blurred, truth);
    std::printf("host images: %s (%s), max error %.3f levels, bound %.2f\n", host.method.c_str(), host.why.c_str(),
                host_error, host.bound_levels);
    if (host_error > host.bound_levels) status = 1;

    // Device memory on our own stream, where there is a GPU: no synchronisation inside run_device.
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
      void *d_src = nullptr, *d_dst = nullptr;
      std::size_t d_pitch = 0;
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      cudaMallocPitch(&d_src, &d_pitch, pitch, height);
      cudaMallocPitch(&d_dst, &d_pitch, pitch, height);
      cudaMemcpy2DAsync(d_src, d_pitch, picture.data(), pitch, pitch, height, cudaMemcpyHostToDevice, stream);
      blur.run_device({d_src, d_pitch, width, height, rgba8}, {d_dst, d_pitch, width, height, rgba8}, stream);
      cudaMemcpy2DAsync(blurred.data(), pitch, d_dst, d_pitch, pitch, height, cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      const gausslab::Choice& device = blur.last_choice();
      const double device_error = max_error(blurred, truth);
      std::printf("device memory: %s (%s), max error %.3f levels, bound %.2f\n", device.method.c_str(),
                  device.why.c_str(), device_error, device.bound_levels);
      if (device_error > device.bound_levels) status = 1;
      cudaFree(d_src);
      cudaFree(d_dst);
      cudaStreamDestroy(stream);
    } else {
      std::printf("device memory: skipped (no CUDA device)\n");
    }

    // A custom kernel: any weights (here a 2D table), divided by their sum, integers stored by floor.
    gausslab::FilterOptions options{gausslab::Kernel::matrix_2d(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1}).normalized(),
                                    gausslab::Border::Reflect};
    options.rounding = gausslab::Rounding::Floor;
    gausslab::Filter smooth(options);
    smooth.run_host({picture.data(), pitch, width, height, rgba8}, {blurred.data(), pitch, width, height, rgba8});
    const std::vector<std::uint8_t> expected = table_floor(picture, width, height, channels);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) differing += blurred[i] != expected[i];
    std::printf("3x3 table, floor: %s (%s), %zu of %zu samples differ from the integer sums\n",
                smooth.last_choice().method.c_str(), smooth.last_choice().why.c_str(), differing, expected.size());
    if (differing) status = 1;
  } catch (const gausslab::Error& error) {
    std::fprintf(stderr, "blur_example: %s\n", error.what());
    return 2;
  }
  if (check && status) std::fprintf(stderr, "blur_example: a result is outside its bound\n");
  return check ? status : 0;
}
