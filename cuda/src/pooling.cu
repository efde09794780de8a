// 2×2 pooling as a kernel of its own: one thread per pooled pixel, a 1D grid over the pooled image
// in row order (no 65535 limit on rows), the four source pixels read with two coalesced row reads.
// Memory-bound: 4 source pixels read and 1 written per thread; the rule is core/pooling.hpp's.
#include "gausslab/cuda/pooling.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "../methods/pool_common.cuh"

namespace gausslab {

namespace {

constexpr int kPoolThreads = 256;

template <class Storage>
__global__ void __launch_bounds__(kPoolThreads) pool2x2Kernel(ConstImageView src, ImageView dst, PoolMode mode) {
  const long long i = static_cast<long long>(blockIdx.x) * kPoolThreads + threadIdx.x;
  const long long count = static_cast<long long>(dst.width) * dst.height;
  if (i >= count) return;
  const int y = static_cast<int>(i / dst.width);
  const int x = static_cast<int>(i - static_cast<long long>(y) * dst.width);
  const Storage* top = src.row<Storage>(2 * y);
  const Storage* bottom = src.row<Storage>(2 * y + 1);
  dst.row<Storage>(y)[x] = pool_stored(top[2 * x], top[2 * x + 1], bottom[2 * x], bottom[2 * x + 1], mode);
}

bool four_byte_rows(const void* data, std::size_t pitch_bytes) {
  return reinterpret_cast<std::uintptr_t>(data) % 4 == 0 && pitch_bytes % 4 == 0;
}

}  // namespace

void pool_2x2_on_device(const ConstImageView& src, const ImageView& dst, PoolMode mode, cudaStream_t stream) {
  if (mode != PoolMode::Max2x2 && mode != PoolMode::Avg2x2)
    throw std::invalid_argument("pool_2x2_on_device: the mode must be max2x2 or avg2x2");
  if (src.empty() || dst.empty()) throw std::invalid_argument("pool_2x2_on_device: empty image");
  if (std::string problem = pool_problem(src.width, src.height); !problem.empty())
    throw std::invalid_argument("pool_2x2_on_device: " + problem);
  if (dst.width != pooled_side(src.width) || dst.height != pooled_side(src.height) || dst.format != src.format)
    throw std::invalid_argument("pool_2x2_on_device: the destination must be " + std::to_string(pooled_side(src.width)) +
                                "×" + std::to_string(pooled_side(src.height)) + " in the source's format");
  // core/pooling.hpp's rule is for 8-bit and float32 channels (as RGBA8 and F32 pixels here).
  if (src.format != PixelFormat::Rgba8 && src.format != PixelFormat::F32)
    throw std::invalid_argument(std::string("pool_2x2_on_device: 2×2 pooling takes rgba8 and f32 images, not ") +
                                to_string(src.format));
  if (!four_byte_rows(src.data, src.pitch_bytes) || !four_byte_rows(dst.data, dst.pitch_bytes))
    throw std::invalid_argument("pool_2x2_on_device: every image row must start on a 4-byte boundary");
  const long long count = static_cast<long long>(dst.width) * dst.height;
  const unsigned blocks = static_cast<unsigned>((count + kPoolThreads - 1) / kPoolThreads);
  if (src.format == PixelFormat::Rgba8)
    pool2x2Kernel<uchar4><<<blocks, kPoolThreads, 0, stream>>>(src, dst, mode);
  else
    pool2x2Kernel<float><<<blocks, kPoolThreads, 0, stream>>>(src, dst, mode);
  GAUSSLAB_CUDA_CHECK_LAUNCH("pool2x2Kernel", stream);
}

FusedPooling* fused_pooling(Method& method) { return dynamic_cast<FusedPooling*>(&method); }

PoolPath run_and_pool(Method& method, const ConstImageView& src, const ImageView& full, const ImageView& pooled,
                      PoolMode mode, StageTimer* timer, cudaStream_t stream, PoolPath path) {
  if (FusedPooling* fused = fused_pooling(method);
      fused != nullptr && path == PoolPath::Fused && fused->pools_fused(src.format)) {
    fused->run_pooled(src, pooled, mode, timer, stream);
    return PoolPath::Fused;
  }
  method.run(src, full, timer, stream);
  ScopedStage stage(timer, "pool 2x2", stream);
  pool_2x2_on_device(full, pooled, mode, stream);
  return PoolPath::Separate;
}

}  // namespace gausslab
