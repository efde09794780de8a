#pragma once
// The channel adapter's launches (channel_planes.cuh says what they do, per pixel): GpuMethod runs
// the formats a method's kernels do not take through these (gpu_method.hpp).
#include <cuda_runtime.h>

#include <cstddef>

#include "gausslab/core/image.hpp"

namespace gausslab::channels {

// Planes of float (or, widened, one image of uchar4) covering an image and `halo` pixels on every
// side: element (x, y) of plane c, for x in [-halo, width + halo), sits at
//   data + c × plane_bytes + (y + halo) × pitch_bytes + (x + halo) × element bytes.
struct PlaneLayout {
  int width = 0, height = 0;  // of the image (the core)
  int halo = 0;
  std::size_t pitch_bytes = 0;
  std::size_t plane_bytes = 0;
  int planes = 0;  // the image's channels (float planes) or 1 (widened)
};

// `planes` planes of `element_bytes` elements for a width × height image and its halo, rows on
// 128-byte boundaries and planes on 512-byte ones (a plane is then a view any method takes as it
// takes a device image, a texture's included).
PlaneLayout plane_layout(int width, int height, int halo, int planes, std::size_t element_bytes);
// The whole memory of the planes.
inline std::size_t planes_bytes(const PlaneLayout& layout) {
  return layout.plane_bytes * static_cast<std::size_t>(layout.planes);
}
// Plane c's core (the image without the halo) as a view of `format` (F32, or RGBA8 widened).
ImageView plane_view(void* data, const PlaneLayout& layout, int plane, PixelFormat format);

// Enqueued on `stream`, never synchronising. `src` and `dst` are device views of the layout's size;
// with a halo, the memory around `src` holds it (HaloReads, halo_reads.hpp).
// src (any format of layout.planes channels) → float planes.
void unpack_planes(const ConstImageView& src, const PlaneLayout& layout, void* d_planes, cudaStream_t stream);
// float planes → dst, by the store rule of dst's format (integers by `rounding`: the problem's).
void pack_planes(const void* d_planes, const PlaneLayout& layout, const ImageView& dst, IntegerRounding rounding,
                 cudaStream_t stream);
// src (8-bit, 1 to 4 channels) → one RGBA8 image, the missing channels zero.
void widen_to_rgba8(const ConstImageView& src, const PlaneLayout& layout, void* d_wide, cudaStream_t stream);
// The RGBA8 image's first channels → dst (8-bit, 1 to 4 channels).
void narrow_from_rgba8(const void* d_wide, const PlaneLayout& layout, const ImageView& dst, cudaStream_t stream);

}  // namespace gausslab::channels
