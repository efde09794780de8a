// RGBA8 device image → surface: one thread per pixel, a 4-byte load and a 4-byte surface store.
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/surface_copy.hpp"

namespace gausslab {

namespace {

__global__ void copyToSurfaceKernel(ConstImageView src, cudaSurfaceObject_t dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= src.width || y >= src.height) return;
  const Rgba8 p = src.row<Rgba8>(y)[x];
  surf2Dwrite(make_uchar4(p.r, p.g, p.b, p.a), dst, x * 4, y);
}

}  // namespace

void launch_copy_to_surface(const ConstImageView& src, cudaSurfaceObject_t dst, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((src.width + 31) / 32, (src.height + 7) / 8);
  copyToSurfaceKernel<<<grid, block, 0, stream>>>(src, dst);
  GAUSSLAB_CUDA_CHECK_LAUNCH("copyToSurfaceKernel", stream);
}

}  // namespace gausslab
