#pragma once
// Runs any registered method on host images: GPU methods upload, run and download (synchronously);
// CPU methods run in place. For the filter CLI, tests and accuracy checks, not for the frame loop.
#include <cuda_runtime.h>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/pooling.hpp"
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

// The same followed by 2×2 pooling into `pooled` (pooled_side(width) × pooled_side(height)): GPU
// methods pool on the device (run_and_pool: fused into their last pass where they can), CPU
// methods with the CPU reference. PoolMode::None: no pooling, `pooled` is of src's size.
void run_on_host(Method& method, const ConstImageView& src, const ImageView& pooled, const FilterParams& params,
                 PoolMode pool, const RunOptions& options = {});

template <class Pixel>
Image<Pixel> run_on_host(Method& method, const Image<Pixel>& src, const FilterParams& params, PoolMode pool,
                         const RunOptions& options = {}) {
  if (pool == PoolMode::None) return run_on_host(method, src, params, options);
  Image<Pixel> pooled(pooled_side(src.width()), pooled_side(src.height()));
  run_on_host(method, src.view(), pooled.view(), params, pool, options);
  return pooled;
}

}  // namespace gausslab
