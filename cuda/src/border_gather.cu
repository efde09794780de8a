// gather_with_border: one thread per window pixel, a 1D grid in row order (no 65535 limit on rows);
// each thread maps its pixel through the border rule (border_gather_source) and copies its 4 bytes
// (an RGBA8 pixel or a float).
// Memory-bound and small next to the method it feeds (a tile with its halo, once per tile).
#include "gausslab/cuda/border_gather.hpp"

#include <cstdint>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

namespace {

constexpr int kGatherThreads = 256;

__global__ void __launch_bounds__(kGatherThreads)
    borderGatherKernel(ConstImageView src, ImageView dst, int x0, int y0, BorderMode border) {
  const long long index = static_cast<long long>(blockIdx.x) * kGatherThreads + threadIdx.x;
  if (index >= static_cast<long long>(dst.width) * dst.height) return;
  const int j = static_cast<int>(index / dst.width);
  const int i = static_cast<int>(index - static_cast<long long>(j) * dst.width);
  int sx = 0, sy = 0;
  const bool inside = border_gather_source(i, j, x0, y0, src.width, src.height, border, &sx, &sy);
  dst.row<unsigned>(j)[i] = inside ? src.row<unsigned>(sy)[sx] : 0u;  // a pixel's 4 bytes; 0 is 0.0f too
}

bool four_byte_rows(const void* data, std::size_t pitch_bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % 4 == 0 && pitch_bytes % 4 == 0;
}

}  // namespace

void gather_with_border(const ConstImageView& src, const ImageView& dst, int x0, int y0, BorderMode border,
                        cudaStream_t stream) {
  if (src.empty() || dst.empty()) throw std::invalid_argument("gather_with_border: empty image");
  if (src.format != dst.format || bytes_per_pixel(src.format) != 4)
    throw std::invalid_argument("gather_with_border: RGBA8 or F32 images, both of the same format");
  if (!four_byte_rows(src.data, src.pitch_bytes) || !four_byte_rows(dst.data, dst.pitch_bytes))
    throw std::invalid_argument("gather_with_border: every image row must start on a 4-byte boundary");
  const long long count = static_cast<long long>(dst.width) * dst.height;
  const unsigned blocks = static_cast<unsigned>((count + kGatherThreads - 1) / kGatherThreads);
  borderGatherKernel<<<blocks, kGatherThreads, 0, stream>>>(src, dst, x0, y0, border);
  GAUSSLAB_CUDA_CHECK_LAUNCH("borderGatherKernel", stream);
}

}  // namespace gausslab
