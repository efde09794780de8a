#pragma once
// The frame of every GPU method, so that a method file holds only its limits, its scratch, its
// weights and its kernels:
//   prepare()  the refusals (validate + method_limits), the device check, then on_prepare() when
//              the problem changed. A failed on_prepare forgets the prepared problem (run() then
//              refuses) and leaves no CUDA error behind.
//   run()      the views against the prepared problem, whole 4-byte words per row, the run fence
//              (a run on a new stream waits for the last one), the weights upload, run_kernels(),
//              and the fence's completion event, also when a kernel fails to launch.
// A method keeps its device memory in ScratchBuffers made from fence() (they wait for the last run
// before they reallocate or free) and its weights in weights() (copied on the run's stream).
#include <cstddef>
#include <functional>
#include <string>

#include "gausslab/cuda/device_weights.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/run_fence.hpp"

namespace gausslab {

class GpuMethod : public Method {
 public:
  explicit GpuMethod(MethodInfo info) : info_(std::move(info)), fence_(info_.id), weights_(fence_) {}

  const MethodInfo& info() const final { return info_; }

  // validate(problem), then the method's own limits (method_limits).
  std::string unsupported_reason(const FilterProblem& problem) const final;

  // Throws std::invalid_argument when unsupported, CudaUnavailable without a device, CudaOutOfMemory
  // or CudaError from on_prepare (which runs only when the problem changed).
  void prepare(const FilterProblem& problem) final;

  // Throws std::invalid_argument for views that do not match the prepared problem or whose rows do
  // not start on 4-byte boundaries, CudaError when a kernel does not launch.
  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) final;

  // ---- launch helpers, for the methods' launches (also from free functions: hence static) ----
  // The grid of a one-dimensional launch of `blocks` blocks (every tiled kernel: one block per tile,
  // tile_grid.cuh). Throws std::invalid_argument naming `kernel` ("multires: MultiresReduceKernel")
  // when there is none or more than a grid holds (2^31 - 1): never for images within kMaxPixels and
  // this project's tiles, but checked where it is launched rather than assumed.
  static unsigned grid_blocks(long long blocks, const std::string& kernel);
  // How a kernel may use the SM's shared memory (cudaFuncSetAttribute): a ceiling of
  // `max_dynamic_bytes` of dynamic shared memory (above 48 KiB a kernel must opt in; 0 leaves the
  // ceiling as it is), and with Carveout::PreferShared the SM's largest shared-memory carveout, so
  // that more blocks fit beside each other (L1 gets the rest). Set the same ceiling from every
  // instance (the kernel's largest), so that instances of other radii never lower it under each other.
  enum class Carveout { Default, PreferShared };
  static void set_shared_memory(const void* kernel, std::size_t max_dynamic_bytes, Carveout carveout);
  template <class... Args>
  static void set_shared_memory(void (*kernel)(Args...), std::size_t max_dynamic_bytes, Carveout carveout) {
    set_shared_memory(reinterpret_cast<const void*>(kernel), max_dynamic_bytes, carveout);
  }

 protected:
  // The method's own refusals: radius limits, impractical cost, ... Empty when it can run.
  virtual std::string method_limits(const FilterProblem& problem) const = 0;
  // Reserve scratch, set weights, build plans for `problem` (prepared_problem() is the old one).
  virtual void on_prepare(const FilterProblem& problem) = 0;
  // The kernels of one run of the prepared problem, enqueued on `stream`; never synchronises.
  virtual void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer,
                           cudaStream_t stream) = 0;
  // False for a method that reads the source in a way that needs no 4-byte alignment.
  virtual bool reads_source_as_words() const { return true; }

  // A method's other entry points (FusedPooling::run_pooled) run their kernels through this, as
  // run() runs run_kernels: inside the run fence, after the weights' upload.
  void run_fenced(cudaStream_t stream, const std::function<void()>& kernels);
  // run()'s checks of the views, then `kernels` through run_fenced (HaloReads::run_reading_halo).
  void run_checked(const ConstImageView& src, const ImageView& dst, cudaStream_t stream,
                   const std::function<void()>& kernels);

  const RunFence& fence() const { return fence_; }
  DeviceWeights& weights() { return weights_; }
  const DeviceWeights& weights() const { return weights_; }

 private:
  MethodInfo info_;
  RunFence fence_;
  DeviceWeights weights_;  // after fence_: destroyed before it
};

// Whether every row of `view` starts on a `bytes` boundary (its address and its pitch are multiples):
// the launches that copy or store 16 bytes at a time ask it of their views.
bool rows_aligned(const ConstImageView& view, std::size_t bytes);

// "" when every row of both views starts on a 4-byte boundary (the kernels read and write whole
// uchar4 or float pixels), else the message `method_id` refuses them with; the source is not
// checked when `check_source` is false.
std::string row_alignment_problem(const std::string& method_id, const ConstImageView& src, const ImageView& dst,
                                  bool check_source = true);

}  // namespace gausslab
