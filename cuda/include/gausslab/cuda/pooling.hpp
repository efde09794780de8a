#pragma once
// 2×2 pooling on the GPU, with the rule of core/pooling.hpp bit for bit (the per-pixel functions
// are the same __host__ __device__ code): as a separate kernel after any method, or fused into the
// last pass of a method that implements FusedPooling.
//
// For a caller that shows or saves a pooled result (the viewer's toggle, gausslab-filter --pool):
//   run_and_pool(method, src, full, pooled, mode, timer, stream)
// with `method` prepared for src's size, `full` a device image of src's size (scratch, written only
// when the pooling is not fused) and `pooled` of pooled_side(width) × pooled_side(height). Or, on
// any blurred device image: pool_2x2_on_device(blurred, pooled, mode, stream).
#include <cuda_runtime.h>

#include "gausslab/core/image.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

// Enqueues on `stream` the pooling of src into dst (device views, same format, RGBA8 or F32: the rule
// of core/pooling.hpp; dst of pooled_side(src.width) × pooled_side(src.height), rows on 4-byte
// boundaries). Throws std::invalid_argument for PoolMode::None, wrong sizes or formats, another
// format, or a side below 2 (pool_problem).
void pool_2x2_on_device(const ConstImageView& src, const ImageView& dst, PoolMode mode, cudaStream_t stream);

// A GPU method that can pool in its last pass: each output of that pass is rounded to the image's
// format as if stored, and the pooled pixel is written instead (one kernel and one full-size write
// and read fewer than blurring and then pooling).
class FusedPooling {
 public:
  virtual ~FusedPooling() = default;
  // Like Method::run for the prepared problem, but writes the pooled result into `pooled` (device,
  // pooled size, the problem's format). Same rules: enqueues on `stream`, never synchronises.
  // Throws std::invalid_argument for a prepared format it does not pool (pools_fused says).
  virtual void run_pooled(const ConstImageView& src, const ImageView& pooled, PoolMode mode, StageTimer* timer,
                          cudaStream_t stream) = 0;
  // Whether run_pooled takes images of this format (else run_and_pool pools after the blur).
  virtual bool pools_fused(PixelFormat format) const = 0;
};

// The method's FusedPooling, or nullptr where it has none.
FusedPooling* fused_pooling(Method& method);

enum class PoolPath { Fused, Separate };

// Blurs src with the prepared GPU `method` and pools the result into `pooled`: fused where the
// method implements FusedPooling for src's format and `path` allows it, else method.run into `full` and then
// pool_2x2_on_device (timed as the stage "pool 2x2"). Returns the path taken.
PoolPath run_and_pool(Method& method, const ConstImageView& src, const ImageView& full, const ImageView& pooled,
                      PoolMode mode, StageTimer* timer, cudaStream_t stream, PoolPath path = PoolPath::Fused);

}  // namespace gausslab
