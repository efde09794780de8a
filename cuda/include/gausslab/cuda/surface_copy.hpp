#pragma once
// Copies an RGBA8 device image into a CUDA array through a surface object (the viewer's display
// texture, mapped for CUDA): a kernel, where cudaMemcpy2DToArrayAsync may use a copy engine.
#include <cuda_runtime.h>

#include "gausslab/core/image.hpp"

namespace gausslab {

// src: RGBA8 device view; dst: a surface object over an RGBA8 array of at least src's size.
// Enqueues on `stream`, checks the launch.
void launch_copy_to_surface(const ConstImageView& src, cudaSurfaceObject_t dst, cudaStream_t stream);

}  // namespace gausslab
