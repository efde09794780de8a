// naive_2d — direct 2D convolution: one thread per output pixel sums the whole (2r+1)² kernel.
//
// Algorithm: the textbook baseline of the GPU convolution comparisons (the convolution chapter of
// Kirk & Hwu, "Programming Massively Parallel Processors"; the starting point of V. Podlozhnyuk,
// "Image Convolution with CUDA", 2007): the (2r+1)² weights in __constant__ memory up to radius 63,
// in a global buffer beyond, summed in a four-level tree that bounds the float rounding. The
// per-thread code is conv2d::naive_output (conv2d_common.cuh); the CPU model runs it
// (tests/cpu/methods/conv2d/test_conv2d.cpp). The constant bank is one per device: instances take
// turns (an event) and upload their weights again when another's are there.
// Cost: (2r+1)² multiply-adds per pixel and channel: 81 at σ 1, 289 at σ 2, 4225 at σ 8.
// Limits: any size, radius up to 2000, all five borders, every format (RGBA8 and F32 compiled, the
// rest as F32 planes, gpu_method.hpp); runs estimated above 2 s (at 1e12 multiply-adds per second) are
// refused up front; rows on whole pixels (4 bytes) or, through the planes, whole samples.
// Custom kernels of every kind (docs/kernels.md: a matrix of any rank, or a separable kernel as its
// outer product), centred in the (2r+1)² square of their farthest reach r with zero weights around
// a narrower side (naive_weights_for), and --rounding floor/ceil; --normalize's one division in the
// final store (StoreRule).
// Accuracy: float32 rounding; bound kFloatRoundingBound (accuracy_promise.hpp), widened from radius
// 861 by the summation tree's worst case (accuracy_bound), half a level more with floor or ceil.
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.972 ms, 41×41 20.2 ms.
// The cost estimate, launch policy and accuracy measurements: docs/methods/naive_2d.md.
// Radius 1–3: compile-time kernels (the radius a template argument: loops unrolled, each weight at a
// fixed constant-bank offset), chosen automatically, bit for bit the loop (create_looped forces it).
// HaloReads: a sliced run's tile core alone, its halo read from the gathered tile around it (the
// kernels' halo_in_memory), the same bytes as the whole run's (cuda/halo_reads.hpp).
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "conv2d_common.cuh"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/halo_reads.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

using namespace conv2d;

// The 2D weights of the run in flight, for radius <= kMaxConstantRadius (see the header).
__constant__ float c_naive_weights[kConstantWeightCapacity];

// ---- kernel ------------------------------------------------------------------------------------

// kRadius >= 0: the compile-time kernel of radius 1..3 (conv2d_common.cuh), constant weights only.
template <PixelFormat F, bool kConstantWeights, int kRadius = kRunTimeRadius>
__global__ void __launch_bounds__(NaivePolicy::kThreads)
    naive2dKernel(const NaiveArgs<F> args, const float* __restrict__ d_weights, int tiles_x) {
  const TileOrigin tile = tile_at(blockIdx.x, tiles_x, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);
  const int x = tile.x0 + static_cast<int>(threadIdx.x);
  const int y = tile.y0 + static_cast<int>(threadIdx.y);
  if (x >= args.dst.width || y >= args.dst.height) return;  // no barrier follows
  const float* weights = nullptr;
  if constexpr (kConstantWeights)
    weights = c_naive_weights;
  else
    weights = d_weights;
  finish_output<F>(args.dst, args.bands, naive_band_count(args), x, y,
                   naive_output<F>(args, weights, x, y, CompileTimeRadius<kRadius>{}), args.rule);
}

// ---- the shared __constant__ weights ----------------------------------------------------------

// Who may use c_naive_weights next (see the header). `resident` names the weights the symbol holds:
// every prepared set of weights gets a fresh number, so equal numbers mean equal weights.
struct ConstantWeightsTurn {
  std::mutex mutex;
  cudaEvent_t last_kernel_done = nullptr;
  std::uint64_t resident = 0;  // 0: nobody's weights
};

ConstantWeightsTurn& constant_weights_turn() {
  // Never destroyed: at exit it may outlive the CUDA runtime, and an event needs no cleanup then.
  static ConstantWeightsTurn* const turn = new ConstantWeightsTurn;
  return *turn;
}

std::uint64_t next_weights_number() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

// ---- the method ------------------------------------------------------------------------------

class Naive2d final : public HaloReadingGpuMethod {
 public:
  // unrolled: radius 1..3 through the compile-time kernels (false: the run-time loop for every radius).
  // own_weights: the weights in this instance's global memory at every radius, never in the shared
  // constant bank (the viewer's background workers: no turn to wait for, none to make others wait).
  Naive2d(MethodInfo info, bool unrolled, bool own_weights = false)
      : HaloReadingGpuMethod(std::move(info)), unrolled_(unrolled && !own_weights), own_weights_(own_weights) {}

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    return with_rounding(bound_from_units(naive_error_units(2 * problem.params.radius() + 1)), problem.params.rounding);
  }

  WindowBands kernel_window_bands() const override {
    WindowBands bands;
    const int radius = kernel_problem().params.radius();
    dispatch_format(kernel_problem().format,
                    [&](auto tag) { bands = naive_window_bands<decltype(tag)::value>(radius); });
    return bands;
  }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    return cost_refusal("naive_2d", problem,
                        [&](int radius) { return naive_cost(problem, radius, kNaiveMultiplyAddsPerSecond); });
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    const int radius = params.radius();
    // The weights depend on sigma and radius (or the custom kernel) only: a new size or border keeps them.
    if (radius == weights_radius_ && params.sigma == weights_sigma_ && params.kernel == weights_kernel_) return;
    weights_radius_ = -1;  // until the new weights are complete
    const std::vector<float> weights_2d = naive_weights_for(params);
    if (radius <= kMaxConstantRadius && !own_weights_) {
      weights().set_for_symbol(weights_2d);  // run_kernels copies them into the shared constant bank
    } else {
      const std::size_t taps = 2 * static_cast<std::size_t>(radius) + 1;
      weights().set(weights_2d, "the " + std::to_string(taps) + " × " + std::to_string(taps) + " weights of radius " +
                                    std::to_string(radius) + " (lower sigma)");
    }
    weights_radius_ = radius;
    weights_sigma_ = params.sigma;
    weights_kernel_ = params.kernel;
    weights_number_ = next_weights_number();
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    dispatch_format(src.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      launch<F>(src, dst, timer, stream);
    });
  }

 private:
  template <PixelFormat F>
  void launch(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) {
    NaiveArgs<F> args = make_naive_args<F>(src, dst, kernel_problem().params);
    args.halo_in_memory = halo_in_memory();
    args.bands = bands();
    const int tiles_x = div_up(dst.width, NaivePolicy::kThreadsX);
    const dim3 grid(grid_blocks(tile_block_count(dst.width, dst.height, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY),
                                "naive_2d: naive2dKernel"));
    const dim3 block(NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);

    if (args.radius > kMaxConstantRadius || own_weights_) {  // this instance's own weights in global memory
      ScopedStage stage(timer, "convolve", stream);
      naive2dKernel<F, false><<<grid, block, 0, stream>>>(args, weights().device(), tiles_x);
      GAUSSLAB_CUDA_CHECK_LAUNCH("naive2dKernel (global weights)", stream);
      return;
    }
    // The constant bank is shared by every instance: take turns, upload when another's are there.
    ConstantWeightsTurn& turn = constant_weights_turn();
    const std::lock_guard<std::mutex> lock(turn.mutex);
    if (!turn.last_kernel_done)
      GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&turn.last_kernel_done, cudaEventDisableTiming));
    else
      GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, turn.last_kernel_done, 0));
    if (turn.resident != weights_number_) {
      ScopedStage stage(timer, "upload weights", stream);
      turn.resident = 0;  // until the copy is enqueued
      weights().upload_to_symbol(c_naive_weights, stream);
      turn.resident = weights_number_;
    }
    {
      ScopedStage stage(timer, "convolve", stream);
      // The compile-time kernels sum the whole window in one launch.
      const bool all_bands = args.bands.first == 0 && args.bands.end >= naive_band_count(args);
      dispatch_radius(args.radius, unrolled_ && all_bands, [&](auto radius) {
        constexpr int kRadius = decltype(radius)::value;
        naive2dKernel<F, true, kRadius><<<grid, block, 0, stream>>>(args, nullptr, tiles_x);
      });
      try {
        GAUSSLAB_CUDA_CHECK_LAUNCH("naive2dKernel (constant weights)", stream);
      } catch (const CudaError&) {
        // The next turn still waits for whatever did launch before it changes the weights.
        GAUSSLAB_CUDA_LOG(cudaEventRecord(turn.last_kernel_done, stream));
        throw;
      }
    }
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(turn.last_kernel_done, stream));
  }

  bool unrolled_ = true;
  bool own_weights_ = false;
  int weights_radius_ = -1;
  double weights_sigma_ = 0;
  FilterKernel weights_kernel_;
  std::uint64_t weights_number_ = 0;  // names these weights in the constant bank's turn
};

}  // namespace

MethodEntry naive_2d_method() {
  MethodInfo info{"naive_2d", "Naive 2D (constant memory)",
                  "One thread per pixel sums the full (2r+1)² kernel, weights in constant memory up to radius 63 "
                  "(global memory above): (2r+1)² multiply-adds per pixel and channel, r = 4σ: 289 at σ=2, "
                  "4225 at σ=8",
                  {},
                  Backend::Cuda};
  info.same_bytes_in_bands = true;
  info.computes_core_from_halo = true;
  info.formats = FormatSet::all();  // RGBA8 and F32 compiled, the others as F32 planes (gpu_method.hpp)
  info.accuracy = accuracy_promise("float32 rounding", kFloatRoundingBound, info.formats,
                                   "a little wider from radius 861 (the rounding of its summation tree)");
  info.kernels = KernelSupport::Any;  // a matrix of any rank, centred in the square of its farthest reach
  info.all_roundings = true;
  MethodEntry entry{info, [info] { return std::make_unique<Naive2d>(info, true); }};
  entry.create_looped = [info] { return std::make_unique<Naive2d>(info, false); };
  entry.create_for_worker = [info] { return std::make_unique<Naive2d>(info, false, true); };
  return entry;
}

}  // namespace gausslab
