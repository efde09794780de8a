// tiled_1d — 1D signals: the tiled convolution of the 1D-convolution tutorials (Kirk & Hwu,
// "Programming Massively Parallel Processors", ch. 7: tiles loaded with their halo into shared
// memory once, the mask in constant memory), made a streaming kernel. Our own code; the per-thread
// work is tiled_1d_common.cuh, which tests/cpu/methods/tiled_1d/ runs on the CPU. docs/methods/tiled_1d.md
// has the design and the numbers.
//
// A block of 64 threads filters 1024 consecutive samples: 16-byte loads of the tile and its halo
// into shared memory, each thread 16 consecutive outputs from a register window (16 new samples per
// 16 taps), then 16-byte coalesced stores staged through shared memory. Weights: the 2r+1 floats in
// the kernel's parameters (the constant bank) up to radius 127, in global memory beyond.
//
// Cost in sigma: 2r+1 multiply-adds per sample (r = 4σ), 1 + (2r+1)/16 shared loads, and one 4-byte
// read and one write per sample (the halo adds 2r / 1024). A block loads, computes and stores in
// turn, so the memory and the arithmetic overlap only across the blocks on an SM: small blocks (16
// per SM) keep some loading while others compute. Beyond radius ~20 the instruction issue limits
// it (per group of 16 taps: 256 FMAs, 16 shared loads, 16 weight loads, 16 adds).
//
// Limits: 1D signals only (FilterAxes::RowsOnly, a 1×N F32 image: gausslab-filter's .npy path);
// any length up to 2^29 samples, any radius up to 2000, the five borders, exact for radii beyond
// the length. Rows must start on 4-byte boundaries; 16-byte vectors where the signal is aligned.
//
// Accuracy: float32 rounding in groups of 16 taps, worst case (17 + ceil((2r+1)/16)) · 2^-24 of
// sum |w x|: promised kFloatRoundingBound up to radius 1199, that worst case beyond (1.6e-5 at 2000).
// Its arithmetic against the float64 reference (20 000 samples, 5 borders): 1.5e-7 at radius 20.
//
// Measured on an H100 (2^26 samples): 0.191 ms at radius 3 (95 % of copy bandwidth), 0.248 ms at
// radius 20 (73 %: the 70 % target is met), 0.544 ms at radius 64. Blocks of 256 threads with 8
// outputs each gave 88 / 53 / 23 %; 16 outputs per thread and then 64-thread blocks made the gain.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "tiled_1d_common.cuh"

namespace gausslab {

namespace {

using namespace tiled1d;

// Up to radius 127 the weights travel in the kernel's parameters: the constant bank, read with the
// same address by every thread of a warp (a broadcast), and each launch carries its own.
constexpr int kParameterTaps = 255;

struct ParameterWeights {
  float w[kParameterTaps];
  __device__ __forceinline__ float operator[](int k) const { return w[k]; }
};

struct GlobalWeights {
  const float* __restrict__ w;
  __device__ __forceinline__ float operator[](int k) const { return __ldg(w + k); }
};

struct DeviceSource {
  const float* __restrict__ samples;
  __device__ __forceinline__ float operator()(int i) const { return __ldg(samples + i); }
  __device__ __forceinline__ float4 vector(int q) const { return __ldg(reinterpret_cast<const float4*>(samples) + q); }
};

struct DeviceDestination {
  float* samples;
  __device__ __forceinline__ void store(int i, float value) const { samples[i] = value; }
  __device__ __forceinline__ void store_vector(int q, float4 v) const { reinterpret_cast<float4*>(samples)[q] = v; }
};

struct SharedTile {
  float* data;
  __device__ __forceinline__ float operator[](int i) const { return data[i]; }
  __device__ __forceinline__ void store(int i, float value) const { data[i] = value; }
};

// ---- kernel ------------------------------------------------------------------------------------

// One block per tile: load | compute | stage | store, a barrier between each.
template <bool kVector, class Weights>
__global__ void __launch_bounds__(P::kThreads) tiled1dKernel(const __grid_constant__ SignalArgs args,
                                                             const __grid_constant__ Weights weights) {
  extern __shared__ float s_tile[];
  const SharedTile tile{s_tile};
  const int block = static_cast<int>(blockIdx.x);
  const int thread = static_cast<int>(threadIdx.x);
  load_tile<kVector>(args, block, thread, DeviceSource{args.src}, tile);
  __syncthreads();
  float out[P::kOutputs];
  compute_outputs(args, thread, tile, weights, out);
  __syncthreads();  // every window read is done before the outputs overwrite the samples
  stage_outputs(thread, out, tile);
  __syncthreads();
  store_outputs<kVector>(args, block, thread, tile, DeviceDestination{args.dst});
}

template <bool kVector, class Weights>
void launch(const SignalArgs& args, const Weights& weights, cudaStream_t stream) {
  const long long blocks = block_count(args.length);
  const std::size_t shared_bytes = static_cast<std::size_t>(shared_floats(args.taps)) * sizeof(float);
  tiled1dKernel<kVector, Weights><<<static_cast<unsigned>(blocks), P::kThreads, shared_bytes, stream>>>(args, weights);
  GAUSSLAB_CUDA_CHECK_LAUNCH("tiled1dKernel", stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// ---- the method ------------------------------------------------------------------------------

class Tiled1d final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    return bound_of_relative(error_bound(2 * problem.params.radius() + 1));
  }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    if (problem.params.axes != FilterAxes::RowsOnly)
      return "tiled_1d filters 1D signals only (along x, as gausslab-filter does for a .npy file); for an image "
             "choose a 2D method such as separable_shared";
    if (problem.height != 1)
      return "tiled_1d filters one signal at a time: a 1×N image, not " + std::to_string(problem.width) + "×" +
             std::to_string(problem.height);
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    const int radius = problem.params.radius();
    const int taps = 2 * radius + 1;
    host_weights_ = gaussian_weights_f32(problem.params.sigma, radius);
    weights().reserve(2 * static_cast<std::size_t>(kMaxRadius) + 1);  // the longest kernel, once
    if (taps > kParameterTaps)
      weights().set(host_weights_, "the " + std::to_string(taps) + " weights of radius " + std::to_string(radius));
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterParams& params = kernel_problem().params;
    SignalArgs args;
    args.src = static_cast<const float*>(src.data);
    args.dst = static_cast<float*>(dst.data);
    args.length = src.width;
    args.radius = params.radius();
    args.taps = 2 * args.radius + 1;
    args.border = params.border;
    const bool vector = aligned16(args.src) && aligned16(args.dst);
    ScopedStage stage(timer, "convolve", stream);
    if (args.taps <= kParameterTaps) {
      ParameterWeights in_parameters{};
      std::copy(host_weights_.begin(), host_weights_.end(), in_parameters.w);
      vector ? launch<true>(args, in_parameters, stream) : launch<false>(args, in_parameters, stream);
    } else {
      const GlobalWeights in_global{weights().device()};
      vector ? launch<true>(args, in_global, stream) : launch<false>(args, in_global, stream);
    }
  }

 private:
  std::vector<float> host_weights_;
};

}  // namespace

MethodEntry tiled_1d_method() {
  MethodInfo info{"tiled_1d", "Tiled 1D (signals)",
                  "1D signals: 1024-sample tiles with their halo in shared memory, 16 outputs per thread from a "
                  "register window, 16-byte loads and stores; 2r+1 multiply-adds per sample, r = 4σ: one read and "
                  "one write per sample, memory-bound at small σ",
                  {},
                  Backend::Cuda, /*filters_along_x_only=*/true};
  info.formats = {PixelFormat::F32};  // a float32 signal; other signals go through separable_shared's row pass
  info.accuracy = accuracy_promise("float32 rounding", kFloatRoundingBound, info.formats,
                                   "a little wider beyond radius 1199 (the rounding of its groups of taps)");
  info.same_bytes_in_bands = true;
  return {info, [info] { return std::make_unique<Tiled1d>(info); }};
}

}  // namespace gausslab
