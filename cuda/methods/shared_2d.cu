// shared_2d — 2D convolution from a shared-memory tile with its apron, several outputs per thread.
//
// Algorithm: the tiled convolution with halo cells (Kirk & Hwu, "Programming Massively Parallel
// Processors"; the apron of V. Podlozhnyuk, "Image Convolution with CUDA", 2007): a block stages its
// output tile plus the apron in shared memory and each thread convolves R neighbouring outputs from
// there; taps beyond the tile come in chunks of at most 32 × 32, each staged in turn. Still the full
// 2D sum with weights w[i]·w[j]: no partial sum is shared between outputs. The per-thread code is
// conv2d_common.cuh; the CPU model runs it block by block (tests/cpu/methods/conv2d/test_conv2d.cpp).
// Cost: (2r+1)² + (2r+1) multiply-adds per pixel and channel: 306 at σ 2, 4290 at σ 8.
// Limits: any size, radius up to 2000, all five borders, every format (RGBA8 and F32 compiled, the
// rest as F32 planes, gpu_method.hpp); runs estimated above 2 s (at 3e12 multiply-adds per second) are
// refused, never one that naive_2d accepts; rows on whole pixels (4 bytes) or samples.
// Accuracy: float32 rounding; bound kFloatRoundingBound (accuracy_promise.hpp), widened from radius
// 800 by the summation tree's worst case (accuracy_bound).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.207 ms, 41×41 2.85 ms.
// Chunks, launch policy, shared memory and accuracy measurements: docs/methods/shared_2d.md.
// Radius 1–3: compile-time kernels (the radius a template argument: loops unrolled, each weight at a
// fixed constant-bank offset), chosen automatically, bit for bit the loop (create_looped forces it).
// HaloReads: a sliced run's tile core alone, its halo read from the gathered tile around it (the
// kernels' halo_in_memory), the same bytes as the whole run's (cuda/halo_reads.hpp).
#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "conv2d_common.cuh"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/halo_reads.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

using namespace conv2d;

// Shared memory a kernel may use without opting in.
constexpr std::size_t kDefaultSharedBytes = 48 * 1024;

// Largest kernel parameter block (CUDA 12.1+).
static_assert(sizeof(Shared2dArgs<PixelFormat::Rgba8, kLargeWeightCapacity>) <= 32764 &&
                  sizeof(Shared2dArgs<PixelFormat::F32, kLargeWeightCapacity>) <= 32764,
              "the weights must fit in the kernel parameters");

// The device side of the window that conv2d's stage/accumulate functions use (the CPU model uses
// a checked one).
template <class T>
struct SharedWindow {
  T* data;
  __device__ __forceinline__ T load(int index) const { return data[index]; }
  __device__ __forceinline__ void store(int index, T value) const { data[index] = value; }
};

// ---- kernel ------------------------------------------------------------------------------------

// One block per tile, over the chunks of the bands args.bands names (all in a plain run; a split run
// starts from the running totals in memory and leaves them there). Every thread runs every chunk's two barriers (the loop count is the same for
// the whole block, and no thread returns early); threads whose row is below the image stage but
// skip the arithmetic.
// kRadius >= 0: the compile-time kernel of radius 1..3 (conv2d_common.cuh): one chunk of taps × taps.
template <PixelFormat F, int Capacity, int kRadius = kRunTimeRadius>
__global__ void __launch_bounds__(Shared2dPolicy<F>::kThreads) shared2dKernel(const Shared2dArgs<F, Capacity> args) {
  extern __shared__ __align__(16) unsigned char s_window_bytes[];
  const SharedWindow<PixelAccum<F>> window{reinterpret_cast<PixelAccum<F>*>(s_window_bytes)};
  const TileOrigin tile = shared_2d_tile<F>(blockIdx.x, args.tiles_x);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const bool has_outputs = thread_row_in_image(args, tile, ty);

  ThreadSums<F> sums;
  clear(sums);
  if (has_outputs) load_running_totals(args, tile, tx, ty, sums);
  const int end = end_chunk(args);
  for (int index = first_chunk(args); index < end; ++index) {
    const Chunk chunk = chunk_at(args.chunks, index);
    __syncthreads();  // everyone has finished reading the previous chunk's window
    stage_chunk(args, tile, chunk, tx, ty, window);
    __syncthreads();  // the whole window is staged
    if (has_outputs) accumulate_chunk(args, chunk, tx, ty, window, sums, CompileTimeRadius<kRadius>{});
  }
  if (has_outputs) store_outputs(args, tile, tx, ty, sums);
}

// ---- the method ------------------------------------------------------------------------------

// The cost estimate for any format: the smaller of this method's and naive_2d's (see the header).
// `kernel_format`: the format its kernels run the problem's images in (GpuMethod::kernel_format).
CostEstimate shared_2d_cost(const FilterProblem& problem, PixelFormat kernel_format, int radius) {
  CostEstimate own;
  dispatch_format(kernel_format, [&](auto tag) {
    constexpr PixelFormat F = decltype(tag)::value;
    own = shared_cost<F>(problem, radius, kSharedMultiplyAddsPerSecond);
  });
  const CostEstimate naive = naive_cost(problem, radius, kNaiveMultiplyAddsPerSecond);
  return naive.seconds < own.seconds ? naive : own;
}

class Shared2d final : public HaloReadingGpuMethod {
 public:
  // unrolled: radius 1..3 through the compile-time kernels (false: the run-time loop for every radius).
  Shared2d(MethodInfo info, bool unrolled) : HaloReadingGpuMethod(std::move(info)), unrolled_(unrolled) {}

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    // The chunk depends on the device; before prepare(), assume the policy's (the bound barely moves).
    const int taps = 2 * problem.params.radius() + 1;
    int max_chunk = 0;
    dispatch_format(kernel_format(problem.format),
                    [&](auto tag) { max_chunk = Shared2dPolicy<decltype(tag)::value>::kMaxChunk; });
    const ChunkPlan plan = problem == prepared_problem() ? plan_ : make_chunk_plan(taps, max_chunk);
    return bound_from_units(shared_error_units(plan));
  }

  WindowBands kernel_window_bands() const override {
    std::size_t accum_bytes = 0;
    dispatch_format(kernel_problem().format, [&](auto tag) { accum_bytes = sizeof(PixelAccum<decltype(tag)::value>); });
    return shared_window_bands(plan_, accum_bytes);
  }

 protected:
  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    dispatch_format(src.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      if (plan_.taps <= kSmallWeightCapacity)
        launch<F, kSmallWeightCapacity>(src, dst, timer, stream);
      else
        launch<F, kLargeWeightCapacity>(src, dst, timer, stream);
    });
  }

  std::string method_limits(const FilterProblem& problem) const override {
    const PixelFormat kernel = kernel_format(problem.format);
    return cost_refusal("shared_2d", problem, [&](int radius) { return shared_2d_cost(problem, kernel, radius); });
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    const int taps = 2 * params.radius() + 1;
    int device = 0, optin_bytes = 0;
    GAUSSLAB_CUDA_CHECK(cudaGetDevice(&device));
    GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const std::size_t shared_bytes = optin_bytes > 0 ? static_cast<std::size_t>(optin_bytes) : kDefaultSharedBytes;
    int max_chunk = 0;
    dispatch_format(problem.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      max_chunk = max_chunk_for<F>(shared_bytes);
      // Opt in to the largest window any instance of this format uses on this device (never less,
      // so two instances with different chunks cannot undo each other's setting).
      if (max_chunk > 0 && window_bytes<F>(max_chunk) > kDefaultSharedBytes) {
        const std::size_t bytes = window_bytes<F>(max_chunk);
        set_shared_memory(shared2dKernel<F, kSmallWeightCapacity>, bytes, Carveout::Default);
        set_shared_memory(shared2dKernel<F, kLargeWeightCapacity>, bytes, Carveout::Default);
      }
      if (max_chunk > 0) window_bytes_ = window_bytes<F>(make_chunk_plan(taps, max_chunk).chunk);
    });
    if (max_chunk == 0)
      throw std::invalid_argument("shared_2d: this GPU offers " + std::to_string(shared_bytes) +
                                  " bytes of shared memory per block, less than the smallest window needs; use "
                                  "naive_2d or a separable method");
    plan_ = make_chunk_plan(taps, max_chunk);
    row_weights_ = gaussian_weights_f32(params.sigma, params.radius());
  }

 private:
  template <PixelFormat F, int Capacity>
  void launch(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) const {
    using P = Shared2dPolicy<F>;
    Shared2dArgs<F, Capacity> args =
        make_shared_2d_args<F, Capacity>(src, dst, kernel_problem().params, plan_, row_weights_);
    args.halo_in_memory = halo_in_memory();
    args.bands = bands();
    const long long tiles = tile_block_count(dst.width, dst.height, P::kTileWidth, P::kTileHeight);
    const unsigned blocks = grid_blocks(tiles, "shared_2d: shared2dKernel");

    ScopedStage stage(timer, "convolve", stream);
    // The compile-time kernels need the whole kernel in one chunk (every device's chunk is >= 26).
    const bool one_chunk = plan_.chunks_per_side == 1;
    // RGBA8 at radius 2 the loop is faster on the H100 (0.371 against 0.430 ms at 4096², 5×5): the
    // compile-time kernel is used where it was measured faster.
    const bool measured_faster = !(F == PixelFormat::Rgba8 && args.radius == 2);
    dispatch_radius(args.radius, unrolled_ && one_chunk && Capacity == kSmallWeightCapacity && measured_faster,
                    [&](auto radius) {
      constexpr int kRadius = decltype(radius)::value;
      if constexpr (kRadius == kRunTimeRadius || Capacity == kSmallWeightCapacity)  // no large-capacity copies
        shared2dKernel<F, Capacity, kRadius><<<blocks, dim3(P::kThreadsX, P::kThreadsY),
                                               window_bytes_, stream>>>(args);
    });
    GAUSSLAB_CUDA_CHECK_LAUNCH("shared2dKernel", stream);
  }

  bool unrolled_ = true;
  ChunkPlan plan_;
  std::size_t window_bytes_ = 0;
  std::vector<float> row_weights_;  // 2r + 1 normalised weights, passed by value in every launch
};

}  // namespace

MethodEntry shared_2d_method() {
  MethodInfo info{"shared_2d", "Shared-memory 2D (tiled)",
                  "Tile + apron in shared memory, 3 (RGBA8) or 5 (F32) outputs per thread, weights w[i]·w[j]: still "
                  "the full 2D convolution, (2r+1)² multiply-adds per pixel and channel, r = 4σ: 289 at σ=2, 4225 "
                  "at σ=8; radii beyond the tile in 32×32 chunks",
                  {},
                  Backend::Cuda};
  info.same_bytes_in_bands = true;
  info.computes_core_from_halo = true;
  info.formats = FormatSet::all();  // RGBA8 and F32 compiled, the others as F32 planes (gpu_method.hpp)
  info.accuracy = accuracy_promise("float32 rounding", kFloatRoundingBound, info.formats,
                                   "a little wider from radius 800 (the rounding of its summation tree)");
  MethodEntry entry{info, [info] { return std::make_unique<Shared2d>(info, true); }};
  entry.create_looped = [info] { return std::make_unique<Shared2d>(info, false); };
  return entry;
}

}  // namespace gausslab
