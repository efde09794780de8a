// The channel adapter's kernels: one thread per pixel (all its channels), 32 × 8 threads a block, a
// one-dimensional grid of tiles (tile_grid.cuh). Memory-bound copies; channel_planes.cuh holds the
// per-pixel code, which the CPU tests run.
#include "gausslab/cuda/channel_planes.hpp"

#include <stdexcept>

#include "gausslab/cuda/channel_planes.cuh"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/tile_grid.cuh"

namespace gausslab::channels {

namespace {

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr std::size_t kRowAlignmentBytes = 128;
// Every plane starts where a texture may be bound to it (cudaDevAttrTextureAlignment: 512 bytes on
// the GPUs we know), so that separable_texture binds the planes themselves rather than copies.
constexpr std::size_t kPlaneAlignmentBytes = 512;

// The pixel of this thread, x and y from -halo when `with_halo`.
struct Pixel {
  int x, y;
  bool inside;
};
__device__ __forceinline__ Pixel this_pixel(const PlaneLayout& l, int tiles_x, bool with_halo) {
  const TileOrigin tile = tile_at(static_cast<int>(blockIdx.x), tiles_x, kThreadsX, kThreadsY);
  const int halo = with_halo ? l.halo : 0;
  const int x = tile.x0 + static_cast<int>(threadIdx.x) - halo;
  const int y = tile.y0 + static_cast<int>(threadIdx.y) - halo;
  return {x, y, x < l.width + halo && y < l.height + halo};
}

template <SampleType S>
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    UnpackPlanesKernel(ConstImageView src, PlaneLayout layout, void* planes, int tiles_x) {
  const Pixel p = this_pixel(layout, tiles_x, true);
  if (p.inside) unpack_pixel<S>(src, layout, p.x, p.y, planes);
}

template <SampleType S>
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    PackPlanesKernel(const void* planes, PlaneLayout layout, ImageView dst, IntegerRounding rounding, int tiles_x) {
  const Pixel p = this_pixel(layout, tiles_x, false);
  if (p.inside) pack_pixel<S>(planes, layout, p.x, p.y, dst, rounding);
}

__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    WidenToRgba8Kernel(ConstImageView src, int channels, PlaneLayout layout, void* wide, int tiles_x) {
  const Pixel p = this_pixel(layout, tiles_x, true);
  if (p.inside) widen_pixel(src, channels, layout, p.x, p.y, wide);
}

__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    NarrowFromRgba8Kernel(const void* wide, PlaneLayout layout, int channels, ImageView dst, int tiles_x) {
  const Pixel p = this_pixel(layout, tiles_x, false);
  if (p.inside) narrow_pixel(wide, layout, channels, p.x, p.y, dst);
}

// The grid over the layout's image (with its halo or without), and the tiles in a row of it.
struct Grid {
  unsigned blocks;
  int tiles_x;
};
Grid grid_of(const PlaneLayout& l, bool with_halo, const char* kernel) {
  const int halo = with_halo ? l.halo : 0;
  const int w = l.width + 2 * halo, h = l.height + 2 * halo;
  return {GpuMethod::grid_blocks(tile_block_count(w, h, kThreadsX, kThreadsY), kernel), div_up(w, kThreadsX)};
}

template <class Fn>
void dispatch_sample(SampleType sample, Fn&& fn) {
  switch (sample) {
    case SampleType::U8: return fn(std::integral_constant<SampleType, SampleType::U8>{});
    case SampleType::U16: return fn(std::integral_constant<SampleType, SampleType::U16>{});
    case SampleType::F16: return fn(std::integral_constant<SampleType, SampleType::F16>{});
    case SampleType::F32: return fn(std::integral_constant<SampleType, SampleType::F32>{});
    default: throw std::logic_error("channel planes: an unknown sample type");
  }
}

}  // namespace

PlaneLayout plane_layout(int width, int height, int halo, int planes, std::size_t element_bytes) {
  PlaneLayout l;
  l.width = width;
  l.height = height;
  l.halo = halo;
  l.planes = planes;
  const std::size_t row = static_cast<std::size_t>(width + 2 * halo) * element_bytes;
  l.pitch_bytes = (row + kRowAlignmentBytes - 1) / kRowAlignmentBytes * kRowAlignmentBytes;
  const std::size_t plane = l.pitch_bytes * static_cast<std::size_t>(height + 2 * halo);
  l.plane_bytes = (plane + kPlaneAlignmentBytes - 1) / kPlaneAlignmentBytes * kPlaneAlignmentBytes;
  return l;
}

ImageView plane_view(void* data, const PlaneLayout& layout, int plane, PixelFormat format) {
  const std::size_t element = bytes_per_pixel(format);
  const std::size_t halo = static_cast<std::size_t>(layout.halo);
  char* core = static_cast<char*>(data) + static_cast<std::size_t>(plane) * layout.plane_bytes +
               halo * layout.pitch_bytes + halo * element;
  return {core, layout.width, layout.height, layout.pitch_bytes, format};
}

void unpack_planes(const ConstImageView& src, const PlaneLayout& layout, void* d_planes, cudaStream_t stream) {
  const Grid grid = grid_of(layout, true, "channel planes: UnpackPlanesKernel");
  dispatch_sample(sample_type(src.format), [&](auto sample) {
    UnpackPlanesKernel<decltype(sample)::value>
        <<<grid.blocks, dim3(kThreadsX, kThreadsY), 0, stream>>>(src, layout, d_planes, grid.tiles_x);
  });
  GAUSSLAB_CUDA_CHECK_LAUNCH("UnpackPlanesKernel", stream);
}

void pack_planes(const void* d_planes, const PlaneLayout& layout, const ImageView& dst, IntegerRounding rounding,
                 cudaStream_t stream) {
  const Grid grid = grid_of(layout, false, "channel planes: PackPlanesKernel");
  dispatch_sample(sample_type(dst.format), [&](auto sample) {
    PackPlanesKernel<decltype(sample)::value>
        <<<grid.blocks, dim3(kThreadsX, kThreadsY), 0, stream>>>(d_planes, layout, dst, rounding, grid.tiles_x);
  });
  GAUSSLAB_CUDA_CHECK_LAUNCH("PackPlanesKernel", stream);
}

void widen_to_rgba8(const ConstImageView& src, const PlaneLayout& layout, void* d_wide, cudaStream_t stream) {
  const Grid grid = grid_of(layout, true, "channel planes: WidenToRgba8Kernel");
  WidenToRgba8Kernel<<<grid.blocks, dim3(kThreadsX, kThreadsY), 0, stream>>>(src, channel_count(src.format), layout,
                                                                             d_wide, grid.tiles_x);
  GAUSSLAB_CUDA_CHECK_LAUNCH("WidenToRgba8Kernel", stream);
}

void narrow_from_rgba8(const void* d_wide, const PlaneLayout& layout, const ImageView& dst, cudaStream_t stream) {
  const Grid grid = grid_of(layout, false, "channel planes: NarrowFromRgba8Kernel");
  NarrowFromRgba8Kernel<<<grid.blocks, dim3(kThreadsX, kThreadsY), 0, stream>>>(d_wide, layout,
                                                                                channel_count(dst.format), dst,
                                                                                grid.tiles_x);
  GAUSSLAB_CUDA_CHECK_LAUNCH("NarrowFromRgba8Kernel", stream);
}

}  // namespace gausslab::channels
