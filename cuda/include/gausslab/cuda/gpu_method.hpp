#pragma once
// The frame of every GPU method, so that a method file holds only its limits, its scratch, its
// weights and its kernels:
//   prepare()  the refusals (validate, the formats of MethodInfo::formats, method_limits), the
//              device check, then on_prepare() when the problem changed. A failed on_prepare forgets
//              the prepared problem (run() then refuses) and leaves no CUDA error behind.
//   run()      the views against the prepared problem, whole pixels or samples per row (the row
//              alignment their loads need), the run fence (a run on a new stream waits for the last
//              one), the weights upload, run_kernels(), and the fence's completion event, also when a
//              kernel fails to launch.
// A method keeps its device memory in ScratchBuffers made from fence() (they wait for the last run
// before they reallocate or free) and its weights in weights() (copied on the run's stream).
//
// Pixel formats: a method claims the formats of MethodInfo::formats and compiles kernels for some of
// them (route(format) == Route::Native; RGBA8 and F32 by default). The others it claims run through
// the channel adapter here (channel_planes.cuh): Route::FloatPlanes unpacks every channel into an F32
// plane, runs the F32 kernels on each and packs the results by the format's store rule;
// Route::WidenToRgba8 runs 8-bit images of 1 to 3 channels as RGBA8. on_prepare and run_kernels see
// only the kernels' problem (kernel_problem(): the prepared one with the route's format) and views of
// that format; prepared_problem() stays the caller's.
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

  // validate(problem), the axes and the formats of info() (axes_refusal, format_refusal), then the
  // method's own limits (method_limits).
  std::string unsupported_reason(const FilterProblem& problem) const final;

  // Throws std::invalid_argument when unsupported, CudaUnavailable without a device, CudaOutOfMemory
  // or CudaError from on_prepare (which runs only when the problem changed).
  void prepare(const FilterProblem& problem) final;

  // Throws std::invalid_argument for views that do not match the prepared problem or whose rows do
  // not start where the kernels' loads need (row_alignment), CudaError when a kernel does not launch.
  void run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) final;

  // How the kernels run an image of `format` (one of info().formats).
  enum class Route {
    Native,        // kernels compiled for the format
    FloatPlanes,   // each channel an F32 image through the F32 kernels
    WidenToRgba8,  // an 8-bit image of 1 to 3 channels as RGBA8 (missing channels zero)
  };
  virtual Route route(PixelFormat format) const;
  // The format the kernels see for `format`: itself, F32 or RGBA8 by its route.
  PixelFormat kernel_format(PixelFormat format) const;
  // The byte boundary every row of a view of `format` must start on for this method: a native pixel's
  // alignment (4 for RGBA8 and F32, 8 for RGBA16, 16 for RGBA32F), a sample's through the adapter.
  std::size_t row_alignment(PixelFormat format) const;

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
  // One launch of the kernels on views of the kernels' format: plane `plane` of the adapter's (0 for
  // a native format).
  using KernelRun = std::function<void(const ConstImageView& src, const ImageView& dst, int plane)>;
  // run()'s checks of the views, then through run_fenced: the kernels on the views themselves (a
  // native format), or the adapter's unpacking of src (with `halo` pixels around it, which its
  // memory holds: HaloReads), `kernels` on every plane, and the packing into dst unless
  // `writes_output` is false (a run that leaves running totals, window_bands.hpp).
  void run_checked(const ConstImageView& src, const ImageView& dst, cudaStream_t stream, StageTimer* timer, int halo,
                   bool writes_output, const KernelRun& kernels);
  // The planes the adapter runs the prepared problem in: its channels (float planes), else 1.
  int kernel_planes() const;

  // The problem the kernels run: prepared_problem() in the format of its route.
  const FilterProblem& kernel_problem() const { return kernel_problem_; }

  const RunFence& fence() const { return fence_; }
  DeviceWeights& weights() { return weights_; }
  const DeviceWeights& weights() const { return weights_; }

 private:
  // The adapter's planes for the prepared problem with `halo` pixels around the image (allocated in
  // prepare without a halo, grown the first time a run needs one).
  void reserve_planes(int halo);

  MethodInfo info_;
  RunFence fence_;
  DeviceWeights weights_;  // after fence_: destroyed before it
  FilterProblem kernel_problem_{};
  Route route_ = Route::Native;  // of the prepared problem
  ScratchBuffer planes_in_{fence_}, planes_out_{fence_};
  int planes_halo_ = -1;  // the halo planes_in_ holds (-1: none reserved)
};

// A method whose kernels take RGBA8 only and whose arithmetic is exact for bytes (the integer tensor
// cores, the lookup table): 8-bit images of 1 to 3 channels run widened to RGBA8, the missing
// channels zero; its MethodInfo::formats is FormatSet::of_samples({SampleType::U8}).
class BytesAsRgba8GpuMethod : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;
  Route route(PixelFormat format) const final {
    return format == PixelFormat::Rgba8 ? Route::Native : Route::WidenToRgba8;
  }
};

// The format's pixels as the kernels read them: a C-vector of its samples (kernel_common.cuh), whose
// alignment is the pixel's size for 1, 2 and 4 channels and the sample's for 3.
std::size_t pixel_alignment(PixelFormat format);

// Whether every row of `view` starts on a `bytes` boundary (its address and its pitch are multiples):
// the launches that copy or store 16 bytes at a time ask it of their views.
bool rows_aligned(const ConstImageView& view, std::size_t bytes);

// "" when every row of both views starts on an `alignment`-byte boundary (the kernels read and write
// whole pixels or samples of that size), else the message `method_id` refuses them with; the source
// is not checked when `check_source` is false.
std::string row_alignment_problem(const std::string& method_id, const ConstImageView& src, const ImageView& dst,
                                  std::size_t alignment, bool check_source = true);

}  // namespace gausslab
