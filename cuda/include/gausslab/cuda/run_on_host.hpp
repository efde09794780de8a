#pragma once
// Runs any registered method on host images: GPU methods upload, run and download (synchronously);
// CPU methods run in place. For the filter CLI, tests and accuracy checks, not for the frame loop.
#include <cuda_runtime.h>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct RunOptions {
  cudaStream_t stream = nullptr;
  StageTimer* timer = nullptr;
  // Fills the device output with 0xFF bytes first (NaN for f32), so an unwritten pixel shows.
  bool poison_output = false;
};

// Prepares `method` for src's size and format with `params` and filters src (host) into dst (host).
// Throws std::invalid_argument when the method refuses the problem, CudaError on CUDA failures.
void run_on_host(Method& method, const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                 const RunOptions& options = {});

template <class Pixel>
Image<Pixel> run_on_host(Method& method, const Image<Pixel>& src, const FilterParams& params,
                         const RunOptions& options = {}) {
  Image<Pixel> dst(src.width(), src.height());
  run_on_host(method, src.view(), dst.view(), params, options);
  return dst;
}

}  // namespace gausslab
