#pragma once
// A window of an image, extended beyond its edges by a border rule, copied into a device image of
// the window's size: window pixel (i, j) is source pixel (x0 + i, y0 + j) as the border maps it
// (core/border.hpp's border_index, the rule every method applies), or zero for 'constant'. The
// viewer's sliced runs and the numbers worker's tiled planes (render/sliced_run.hpp) give a method a
// tile with its halo this way, so the method sees exactly the values a run over the whole image
// reads, wrap included.
#include <cuda_runtime.h>

#include "gausslab/core/border.hpp"
#include "gausslab/core/host_device.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

// The kernel's per-thread rule: the source pixel (*sx, *sy) that window pixel (i, j) takes, or false
// where 'constant' supplies a zero. Shared with the CPU model in the tests.
GAUSSLAB_HD bool border_gather_source(int i, int j, int x0, int y0, int width, int height, BorderMode border, int* sx,
                                      int* sy) {
  *sx = border_index(x0 + i, width, border);
  *sy = border_index(y0 + j, height, border);
  return *sx >= 0 && *sy >= 0;
}

// Enqueues on `stream` the copy of the window at (x0, y0) of src into dst (device views, both RGBA8
// or both F32, rows on 4-byte boundaries; the window is dst's size and may reach any distance beyond
// src). Throws std::invalid_argument for other formats, empty views or misaligned rows; CudaError
// when the kernel does not launch.
void gather_with_border(const ConstImageView& src, const ImageView& dst, int x0, int y0, BorderMode border,
                        cudaStream_t stream);

}  // namespace gausslab
