// naive_2d — direct 2D convolution: one thread per output pixel sums the whole (2r+1)² kernel,
// whose weights it reads from __constant__ memory (from global memory above radius 63).
//
// Algorithm and source: the textbook starting point of the GPU convolution comparisons — the
// direct 2D convolution with the mask in constant memory, as in the convolution chapter of Kirk &
// Hwu, "Programming Massively Parallel Processors", and the baseline that V. Podlozhnyuk, "Image
// Convolution with CUDA" (NVIDIA, 2007) improves on. Our own code; the per-thread work is
// conv2d::naive_output (conv2d_common.cuh), which the CPU model in
// tests/cpu/test_conv2d_indexing.cpp runs too.
//
// Cost as a function of sigma: (2r+1)² multiply-adds per pixel and channel, r = floor(4σ + 0.5)
// at the default truncate: 81 at σ = 1, 289 at σ = 2, 4225 at σ = 8, 70 225 at σ = 33,
// 2.56 million at σ = 200. Every tap also reads one source pixel (through L1: a warp reads 32
// neighbouring pixels, and neighbouring warps the same ones) and one weight (the same address for
// every thread of the block: the constant cache broadcasts it).
//
// Where the weights live — the switch: radius <= 63 (kMaxConstantRadius): the (2r+1)² floats in
// __constant__ memory (64 KB = 16384 floats; 127² = 16129 fit). Radius >= 64 (129² = 16641 do not
// fit): the same layout in a global-memory buffer of this instance, read with the same uniform
// address per warp (an L1 broadcast instead of the constant cache's).
// The __constant__ array is one per device and shared by every naive_2d instance, and two
// instances with different sigmas may run on one stream (the viewer's A/B compare). So run()
// uploads its weights there with cudaMemcpyToSymbolAsync on its stream (skipped when this
// instance's weights are still the ones there), and every run first makes its stream wait for the
// previous run's kernel (an event, waited for on the device), so a run on another stream cannot
// overwrite weights that a kernel still reads. The weights are staged in pinned host memory, so
// the copy is truly asynchronous; prepare() rewrites them only after the previous copy has been
// executed.
//
// Launch policy (conv2d::NaivePolicy): blocks of 32 × 8 threads, one per 32 × 8 pixels, numbered
// in a 1D grid (no 65535 limit on rows of blocks). 32 in x: a warp covers 32 neighbouring pixels
// of one row, so each tap is one coalesced read and the warp's weight address is uniform. 8 rows:
// 256 threads per block, enough warps to hide the reads' latency. No shared memory, no barrier.
//
// Limits: any size from 1×1, RGBA8 and F32, all five border modes (border_index on every tap's
// row and column, exact also when the radius exceeds the image side), every radius up to the
// project's 2000. Refused up front: runs estimated above 2 s at an assumed 1e12 multiply-adds per
// second (2 TFLOP/s; an H100 peaks at 33.5e12 fused multiply-adds per second, but this kernel is
// bound by its reads, the RGBA8→float conversions and the border rule, not by arithmetic). The
// estimate counts every launched thread (whole 32 × 8 blocks). Examples (RGBA8 / F32): 1920×1080
// up to radius 245 / 490 (σ 61 / 122); 4096×4096 up to radius 85 / 172 (σ 21 / 43); σ 200
// (radius 800) above about 195 000 / 780 000 pixels. Images: every row must start on a 4-byte
// boundary.
//
// Expected accuracy: float32 rounding. The sums form a four-level tree (taps of a kernel row in
// chunks of c = ceil(sqrt(2r+1)), the chunks of the row, the rows in chunks of c, the chunks of
// rows), so the first-order worst case is (1 + 2c + 2 ceil((2r+1)/c)) · 2^-24 of sum |w x|: 2.8e-6
// at radius 63, 9.7e-6 at radius 800 (conv2d::naive_error_units). Promised: 1e-5 relative (F32)
// and 0.51 levels (RGBA8, 0.5 of which is to_unorm8's rounding), widened by that formula from
// radius 861. Measured with the CPU model against the float64 reference (the kernel's own
// per-thread code, test_conv2d_indexing.cpp, Conv2dModels.AccuracyTable), random images, every
// border, σ 0.5–12: F32 max 2.1e-7 of the peak, RGBA8 max 0.49999 levels (rounding included);
// radius 800 on a 2×2 F32 image: 1.9e-7.
//
// Measured on the GPU (NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0; docs/results): accuracy
// sweep (tests/gpu, 1×1 to 4096² and photos, σ 0.1–200, five borders) F32 max 5.4e-7 of the peak,
// RGBA8 max 0.50 levels, 735 cases passed, 30 refused (σ 200 on large images). Kernel time, 4096² F32
// (gausslab-bench): 7×7 0.972 ms (5 % of the 2973 GB/s copy bandwidth), 41×41 20.19 ms; 4096² RGBA8
// 7×7 1.481 ms. Compute-bound beyond a few taps: 7.8× separable_shared's time at 7×7, 114× at 41×41.
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
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace {

using namespace conv2d;

// The 2D weights of the run in flight, for radius <= kMaxConstantRadius (see the header).
__constant__ float c_naive_weights[kConstantWeightCapacity];

// ---- kernel ------------------------------------------------------------------------------------

template <PixelFormat F, bool kConstantWeights>
__global__ void __launch_bounds__(NaivePolicy::kThreads)
    naive2dKernel(const NaiveArgs<F> args, const float* __restrict__ d_weights, int tiles_x) {
  const Tile tile = tile_at(blockIdx.x, tiles_x, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);
  const int x = tile.x0 + static_cast<int>(threadIdx.x);
  const int y = tile.y0 + static_cast<int>(threadIdx.y);
  if (x >= args.dst.width || y >= args.dst.height) return;  // no barrier follows
  const float* weights = nullptr;
  if constexpr (kConstantWeights)
    weights = c_naive_weights;
  else
    weights = d_weights;
  args.dst.template row<PixelStorage<F>>(y)[x] =
      FromAccum<PixelStorage<F>>::convert(naive_output<F>(args, weights, x, y));
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

class Naive2d final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    const double relative = error_bound_from_units(naive_error_units(2 * problem.params.radius() + 1));
    return {relative, std::max(0.51, 0.5 + 255.0 * relative)};
  }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    return cost_refusal("naive_2d", problem,
                        [&](int radius) { return naive_cost(problem, radius, kNaiveMultiplyAddsPerSecond); });
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    const int radius = params.radius();
    // The weights depend on sigma and radius only: a new size or border keeps them.
    if (radius == weights_radius_ && params.sigma == weights_sigma_) return;
    weights_radius_ = -1;  // until the new weights are complete
    const std::vector<float> weights_2d = naive_weights_2d(params.sigma, radius);
    if (radius <= kMaxConstantRadius) {
      weights().set_for_symbol(weights_2d);  // run_kernels copies them into the shared constant bank
    } else {
      const std::size_t taps = 2 * static_cast<std::size_t>(radius) + 1;
      weights().set(weights_2d, "the " + std::to_string(taps) + " × " + std::to_string(taps) + " weights of radius " +
                                    std::to_string(radius) + " (lower sigma)");
    }
    weights_radius_ = radius;
    weights_sigma_ = params.sigma;
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
    const NaiveArgs<F> args = make_naive_args<F>(src, dst, prepared_problem().params);
    const int tiles_x = div_up(dst.width, NaivePolicy::kThreadsX);
    const long long blocks = tile_count(dst.width, dst.height, NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);
    if (blocks > INT_MAX) throw std::invalid_argument("naive_2d: the image needs more thread blocks than a grid holds");
    const dim3 grid(static_cast<unsigned int>(blocks));
    const dim3 block(NaivePolicy::kThreadsX, NaivePolicy::kThreadsY);

    if (args.radius > kMaxConstantRadius) {  // this instance's own weights in global memory
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
      naive2dKernel<F, true><<<grid, block, 0, stream>>>(args, nullptr, tiles_x);
      GAUSSLAB_CUDA_CHECK_LAUNCH("naive2dKernel (constant weights)", stream);
    }
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(turn.last_kernel_done, stream));
  }

  int weights_radius_ = -1;
  double weights_sigma_ = 0;
  std::uint64_t weights_number_ = 0;  // names these weights in the constant bank's turn
};

}  // namespace

MethodEntry naive_2d_method() {
  MethodInfo info{"naive_2d", "Naive 2D (constant memory)",
                  "One thread per pixel sums the full (2r+1)² kernel, weights in constant memory up to radius 63 "
                  "(global memory above): (2r+1)² multiply-adds per pixel and channel, r = 4σ: 289 at σ=2, "
                  "4225 at σ=8",
                  "float32 rounding: within 1e-5 of the peak (F32) and 0.51 levels (RGBA8) of the float64 "
                  "reference, a little wider from radius 861 (the rounding of its summation tree)",
                  Backend::Cuda};
  return {info, [info] { return std::make_unique<Naive2d>(info); }};
}

}  // namespace gausslab
