#pragma once
// The channel adapter of GpuMethod (gpu_method.hpp), per pixel: how a method runs a pixel format its
// kernels do not take as they are, through one they do take.
//   float planes   each channel becomes an F32 image (a plane): the samples unpacked exactly (every
//                  u8, u16 and f16 value is a float), the method's F32 kernels run on every plane,
//                  the planes packed back by the format's store rule (kernel_common.cuh). The
//                  arithmetic is the float32 arithmetic a kernel compiled for the format would do, so
//                  the method's float bound holds, in the format's own unit; the cost is a pass over
//                  the image before and after, and two sets of planes of scratch.
//   RGBA8, widened 8-bit images of 1 to 3 channels as RGBA8, the missing channels zero (filtered
//                  into zero, then dropped): for the methods whose arithmetic is exact for bytes (the
//                  integer tensor cores, the lookup table) or proven for RGBA8 (multires).
// Written once as __host__ __device__ code: the kernels in channel_planes.cu and the CPU tests
// (tests/cpu/methods/channels/) run these functions.
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/channel_planes.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/store_rule.cuh"

namespace gausslab::channels {

template <class Element>
GAUSSLAB_HD Element* plane_element(void* data, const PlaneLayout& l, int plane, int x, int y) {
  return reinterpret_cast<Element*>(static_cast<char*>(data) + static_cast<long long>(plane) * l.plane_bytes +
                                    static_cast<long long>(y + l.halo) * l.pitch_bytes) +
         (x + l.halo);
}
template <class Element>
GAUSSLAB_HD const Element* plane_element(const void* data, const PlaneLayout& l, int plane, int x, int y) {
  return plane_element<Element>(const_cast<void*>(data), l, plane, x, y);
}

// Row y of a view, for any y the memory around the view holds (negative ones included: the halo).
GAUSSLAB_HD const void* view_row(const ConstImageView& view, int y) {
  return static_cast<const char*>(view.data) + static_cast<long long>(y) * static_cast<long long>(view.pitch_bytes);
}
GAUSSLAB_HD void* view_row(const ImageView& view, int y) {
  return static_cast<char*>(view.data) + static_cast<long long>(y) * static_cast<long long>(view.pitch_bytes);
}

// Pixel (x, y) of `src` (S samples, layout.planes channels; x and y may lie in the halo) into the planes.
template <SampleType S>
GAUSSLAB_HD void unpack_pixel(const ConstImageView& src, const PlaneLayout& layout, int x, int y, void* planes) {
  const void* row = view_row(src, y);
  for (int c = 0; c < layout.planes; ++c)
    *plane_element<float>(planes, layout, c, x, y) =
        load_sample<S>(row, static_cast<long long>(x) * layout.planes + c);
}

// Pixel (x, y) of the image (inside it) from the planes into `dst`, by the store rule of S (integers
// by `rounding`).
template <SampleType S>
GAUSSLAB_HD void pack_pixel(const void* planes, const PlaneLayout& layout, int x, int y, const ImageView& dst,
                            IntegerRounding rounding = IntegerRounding::Nearest) {
  void* row = view_row(dst, y);
  for (int c = 0; c < layout.planes; ++c)
    store_sample_rounded<S>(row, static_cast<long long>(x) * layout.planes + c,
                            *plane_element<float>(planes, layout, c, x, y), rounding);
}

// Pixel (x, y) of an 8-bit image of `channels` channels as an RGBA8 pixel, the missing channels zero.
GAUSSLAB_HD void widen_pixel(const ConstImageView& src, int channels, const PlaneLayout& layout, int x, int y,
                             void* wide) {
  const unsigned char* in = static_cast<const unsigned char*>(view_row(src, y)) + static_cast<long long>(x) * channels;
  uchar4 pixel = make_uchar4(in[0], 0, 0, 0);
  if (channels > 1) pixel.y = in[1];
  if (channels > 2) pixel.z = in[2];
  if (channels > 3) pixel.w = in[3];
  *plane_element<uchar4>(wide, layout, 0, x, y) = pixel;
}

// Its first `channels` channels back into the 8-bit image.
GAUSSLAB_HD void narrow_pixel(const void* wide, const PlaneLayout& layout, int channels, int x, int y,
                              const ImageView& dst) {
  const uchar4 pixel = *plane_element<uchar4>(wide, layout, 0, x, y);
  unsigned char* out = static_cast<unsigned char*>(view_row(dst, y)) + static_cast<long long>(x) * channels;
  out[0] = pixel.x;
  if (channels > 1) out[1] = pixel.y;
  if (channels > 2) out[2] = pixel.z;
  if (channels > 3) out[3] = pixel.w;
}

}  // namespace gausslab::channels
