#pragma once
// A window method that can filter a tile's core alone, reading its halo from memory. A sliced run
// (render/sliced_run.hpp) gathers each tile with a halo of the radius on every side, border rule
// applied; a plain run filters all of it, halo included, and keeps the core: at radius 128 a 77²
// core comes with 333² computed pixels. run_reading_halo filters only the core: the kernels read
// the rows and columns beyond the view from the memory around it instead of applying the border
// rule, so every output is the same sum over the same values, bit for bit the plain run's.
#include <cuda_runtime.h>

#include "gausslab/core/image.hpp"
#include "gausslab/cuda/gpu_method.hpp"

namespace gausslab {

class HaloReads {
 public:
  virtual ~HaloReads() = default;
  // Like Method::run for the prepared problem (src and dst of its size), but src is a view inside a
  // larger device image that holds, around it, the radius of pixels on every side the border rule
  // would give. Enqueues on `stream`, never synchronises.
  virtual void run_reading_halo(const ConstImageView& src, const ImageView& dst, cudaStream_t stream) = 0;
};

// A GpuMethod whose kernels can read the halo from memory: run_reading_halo is run() with
// halo_in_memory() true while run_kernels runs (naive_2d, shared_2d).
class HaloReadingGpuMethod : public GpuMethod, public HaloReads {
 public:
  using GpuMethod::GpuMethod;
  void run_reading_halo(const ConstImageView& src, const ImageView& dst, cudaStream_t stream) final;

 protected:
  bool halo_in_memory() const { return halo_in_memory_; }

 private:
  bool halo_in_memory_ = false;
};

// The method's HaloReads, or nullptr where it has none.
HaloReads* halo_reads(Method& method);

}  // namespace gausslab
