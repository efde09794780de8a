#pragma once
// Shows a grey float device image as RGBA8 (core/grey_display.hpp's mapping), on a stream.
#include <cuda_runtime.h>

#include "gausslab/core/grey_display.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

// src: F32, dst: RGBA8, same size, both device views. Enqueues on `stream`, checks the launch.
void launch_grey_display(const ConstImageView& src, const ImageView& dst, const GreyMapping& mapping,
                         cudaStream_t stream);

}  // namespace gausslab
