#pragma once
// A window method that can filter a tile's core alone, reading its halo from memory. A sliced run
// (render/sliced_run.hpp) gathers each tile with a halo of the radius on every side, border rule
// applied; a plain run filters all of it, halo included, and keeps the core: at radius 128 a 77²
// core comes with 333² computed pixels. run_reading_halo filters only the core: the kernels read
// the rows and columns beyond the view from the memory around it instead of applying the border
// rule, so every output is the same sum over the same values, bit for bit the plain run's. One
// output's window may be summed over several launches, a range of its bands each (window_bands.hpp).
#include <cuda_runtime.h>

#include "gausslab/core/image.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/window_bands.hpp"

namespace gausslab {

class HaloReads {
 public:
  virtual ~HaloReads() = default;
  // Like Method::run for the prepared problem (src and dst of its size), but src is a view inside a
  // larger device image that holds, around it, the radius of pixels on every side the border rule
  // would give. Sums the window's bands `bands` names (BandRange{}: all, the output in dst).
  // Enqueues on `stream`, never synchronises. Throws std::invalid_argument for an empty or
  // out-of-range band range, or a split one without its running totals.
  virtual void run_reading_halo(const ConstImageView& src, const ImageView& dst, const BandRange& bands,
                                cudaStream_t stream) = 0;
  // How the prepared problem's window sum is cut into bands.
  virtual WindowBands window_bands() const = 0;
};

// A GpuMethod whose kernels can read the halo from memory: run_reading_halo is run() with
// halo_in_memory() true and bands() set while run_kernels runs (naive_2d, shared_2d).
class HaloReadingGpuMethod : public GpuMethod, public HaloReads {
 public:
  using GpuMethod::GpuMethod;
  void run_reading_halo(const ConstImageView& src, const ImageView& dst, const BandRange& bands,
                        cudaStream_t stream) final;
  // The kernels' bands, with the running totals of every plane the channel adapter runs.
  WindowBands window_bands() const final;

 protected:
  // How the kernels' window sum (of kernel_problem()) is cut into bands.
  virtual WindowBands kernel_window_bands() const = 0;
  bool halo_in_memory() const { return halo_in_memory_; }
  // The bands of the run in progress (every band outside run_reading_halo).
  const BandRange& bands() const { return bands_; }

 private:
  bool halo_in_memory_ = false;
  BandRange bands_;
};

// The method's HaloReads, or nullptr where it has none.
HaloReads* halo_reads(Method& method);

}  // namespace gausslab
