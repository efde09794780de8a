// Grey float → RGBA8 for display: one thread per pixel, the mapping of core/grey_display.hpp.
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/grey_display.hpp"

namespace gausslab {

namespace {

__global__ void greyDisplayKernel(ConstImageView src, ImageView dst, GreyMapping mapping) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  dst.row<Rgba8>(y)[x] = grey_display_pixel(src.row<float>(y)[x], mapping);
}

}  // namespace

void launch_grey_display(const ConstImageView& src, const ImageView& dst, const GreyMapping& mapping,
                         cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((src.width + 31) / 32, (src.height + 7) / 8);
  greyDisplayKernel<<<grid, block, 0, stream>>>(src, dst, mapping);
  GAUSSLAB_CUDA_CHECK_LAUNCH("greyDisplayKernel", stream);
}

}  // namespace gausslab
