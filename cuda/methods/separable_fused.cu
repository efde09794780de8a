// separable_fused — row pass and column pass in one kernel, the row-filtered tile in shared memory.
//
// Algorithm: a block copies its output tile plus an apron of r on every side into shared memory once
// (cp.async), filters its rows into a shared float tile and that tile's columns into the output,
// which it writes once: 8 B of global traffic per pixel, against separable_shared's 16 (F32) or 40
// (RGBA8). The fusion NVIDIA's convolutionSeparable sample leaves for later; our own code. Radii
// 0–8 (F32: 0–22) run kernels compiled for their tap count, the rest up to 64 a run-time one. The
// per-thread code is separable_fused_common.cuh; the CPU model runs it (tests/cpu/methods/separable/).
// Cost: 2(2r+1)(1 + r/64) multiply-adds per pixel and channel (the row pass also filters the apron
// rows): faster than separable_shared up to radius 22 (F32) and ~24 (RGBA8).
// Limits: radius ≤ 64 (kMaxFusedRadius: the RGBA8 tile and apron need 220 KiB of shared memory, an
// H100 block may have 227 KiB; a GPU with less refuses the radii that do not fit), any size, all
// five borders, RGBA8 and F32; rows on 4-byte boundaries.
// Accuracy: float32 rounding, bit for bit the plain loop's (and separable_shared's); bound 1e-5
// relative (F32), 0.51 levels (RGBA8).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.0567 ms, 80 % of copy bandwidth;
// 41×41 0.1128 ms (separable_shared 0.1765); RGBA8 sigma 0.5 0.0893 ms, 51 % (sigma 2 0.170 ms).
// Tile shapes tried, shared memory, resources and the accuracy table: docs/methods/separable_fused.md.
// Fused 2×2 pooling (FusedPooling): the column pass stages its rounded outputs in the raw tile,
// a pool pass writes the pooled tile; bit for bit the separate pooling kernel.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/pooling.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "async_copy.cuh"
#include "separable_fused_common.cuh"

namespace gausslab {

namespace {

using namespace fused;
using separable::SharedSpan;

// ---- kernel ---------------------------------------------------------------------------------------

// The fill phase's memory (fill_tile): source pixels and weights into the block's shared arrays.
template <class In>
struct DeviceFill {
  const char* src;
  std::size_t src_pitch_bytes;
  const float* weights;
  In* raw;
  float* shared_weights;

  __device__ void copy(int slot, int source_row, int source_col) const {
    if (source_row < 0 || source_col < 0) {
      raw[slot] = zero_value<In>();
      return;
    }
    copy_inside(slot, source_row, source_col);
  }
  __device__ void copy_inside(int slot, int source_row, int source_col) const {
    copy_word_async(raw + slot, reinterpret_cast<const In*>(src + static_cast<std::size_t>(source_row) * src_pitch_bytes) +
                                    source_col);
  }
  __device__ void copy_weight(int t) const { shared_weights[t] = weights[t]; }
};

// kStreaming: st.global.cs, the evict-first store (FusedPolicy::kStreamingStores). RGBA8 outputs are
// converted by nonnegative_to_unorm8_bits: every sum here is >= 0.
template <class Out, bool kStreaming>
struct DeviceStore {
  char* dst;
  std::size_t dst_pitch_bytes;
  template <class Accum>
  __device__ void store(int x, int y, Accum value) const {
    static_assert(std::is_same_v<Out, uchar4> || std::is_same_v<Out, float>, "RGBA8 or F32 pixels");
    unsigned bits;
    if constexpr (std::is_same_v<Out, uchar4>)
      bits = nonnegative_to_unorm8_bits(value);  // the Gaussian's weights and the samples are >= 0
    else
      bits = __float_as_uint(value);
    unsigned* const at = reinterpret_cast<unsigned*>(dst + static_cast<std::size_t>(y) * dst_pitch_bytes) + x;
    if constexpr (kStreaming)
      __stcs(at, bits);
    else
      *at = bits;
  }
};

// The pooled image's memory (pool_pass): whole pixels, already in the image's format.
template <class Out>
struct DevicePooledStore {
  char* dst;
  std::size_t dst_pitch_bytes;
  __device__ void store(int x, int y, Out value) const {
    reinterpret_cast<Out*>(dst + static_cast<std::size_t>(y) * dst_pitch_bytes)[x] = value;
  }
};

// One block, one output tile: fill, rows, columns (separable_fused_common.cuh). kTaps > 0: the
// kernel of radius (kTaps - 1) / 2, weights in registers; kTaps = 0: any radius of the policy.
// kPooled: the column pass stages its outputs in the raw tile's memory and the pool pass writes the
// 2×2-pooled tile into dst (the pooled image) instead.
template <class P, class In, int kTaps, bool kPooled>
__global__ void __launch_bounds__(P::kThreads, resident_blocks_bound(P::kThreads, P::kMinBlocksPerSm))
    SeparableFusedKernel(FusedProblem problem, const char* src, std::size_t src_pitch_bytes, char* dst,
                         std::size_t dst_pitch_bytes, const float* weights, PoolMode pool) {
  using Accum = AccumOf<In>;
  extern __shared__ float4 fused_shared[];  // 16-byte aligned, for h's float4 (layout in fused_layout)
  const FusedLayout layout = fused_layout<P, In, Accum>(problem.radius);
  char* const base = reinterpret_cast<char*>(fused_shared);
  float* const shared_weights = reinterpret_cast<float*>(base);
  const SharedSpan<Accum> h{reinterpret_cast<Accum*>(base + layout.h_offset_bytes)};
  In* const raw = reinterpret_cast<In*>(base + layout.raw_offset_bytes);
  const FusedTile tile = fused_tile<P>(problem, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);

  fill_tile<P>(problem, layout, tile, thread, DeviceFill<In>{src, src_pitch_bytes, weights, raw, shared_weights});
  wait_async_copies();
  __syncthreads();  // the raw tile and the weights are complete
  auto columns = [&](const auto& w) {
    if constexpr (kPooled) {
      // The row pass, the last reader of raw, finished before the barrier that completed h.
      column_pass<P, kTaps>(problem, tile, thread, h, w, StagedOutputs<P, In, SharedSpan<In>>{SharedSpan<In>{raw}, tile});
      __syncthreads();  // the tile's outputs are staged
      pool_pass<P>(problem, tile, thread, SharedSpan<In>{raw}, pool, DevicePooledStore<In>{dst, dst_pitch_bytes});
    } else {
      column_pass<P, kTaps>(problem, tile, thread, h, w, DeviceStore<In, P::kStreamingStores>{dst, dst_pitch_bytes});
    }
  };
  if constexpr (kTaps > 0) {
    float w[kTaps];
    load_register_weights(SharedSpan<float>{shared_weights}, w);
    row_pass<P, kTaps>(problem, layout, tile, thread, SharedSpan<In>{raw}, w, h);
    __syncthreads();  // h is complete
    columns(w);
  } else {
    const SharedSpan<float> w{shared_weights};
    row_pass<P, 0>(problem, layout, tile, thread, SharedSpan<In>{raw}, w, h);
    __syncthreads();  // h is complete
    columns(w);
  }
}

// ---- launch configuration -------------------------------------------------------------------------

using FusedKernel = void (*)(FusedProblem, const char*, std::size_t, char*, std::size_t, const float*, PoolMode);

struct FusedLaunch {
  FusedKernel kernel = nullptr;
  FusedKernel pooled_kernel = nullptr;  // the same with the pool pass (run_pooled)
  int threads = 0;
  long long blocks = 0;
  unsigned shared_bytes = 0;             // dynamic shared memory of this launch
  unsigned kernel_max_shared_bytes = 0;  // of this kernel at the largest radius it is launched for
};

template <PixelFormat F>
FusedLaunch fused_launch_for(int width, int height, int radius) {
  using In = typename PixelTraits<F>::Storage;
  using Accum = AccumOf<In>;
  FusedLaunch launch{};
  dispatch_fused_kernel<F>(radius, [&](auto policy, auto taps) {
    using P = typename decltype(policy)::type;
    constexpr int kTaps = decltype(taps)::value;
    launch.kernel = &SeparableFusedKernel<P, In, kTaps, false>;
    launch.pooled_kernel = &SeparableFusedKernel<P, In, kTaps, true>;
    launch.threads = P::kThreads;
    launch.blocks = fused_tile_count<P>(width, height);
    launch.shared_bytes = fused_layout<P, In, Accum>(radius).total_bytes;
    launch.kernel_max_shared_bytes = fused_layout<P, In, Accum>(kTaps > 0 ? radius : P::kMaxRadius).total_bytes;
  });
  return launch;
}

FusedLaunch fused_launch(const FilterProblem& problem) {
  const int radius = problem.params.radius();
  return problem.format == PixelFormat::Rgba8
             ? fused_launch_for<PixelFormat::Rgba8>(problem.width, problem.height, radius)
             : fused_launch_for<PixelFormat::F32>(problem.width, problem.height, radius);
}

std::string kib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

// ---- method ---------------------------------------------------------------------------------------

class SeparableFused final : public GpuMethod, public FusedPooling {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {1e-5, 0.51}; }

  void run_pooled(const ConstImageView& src, const ImageView& pooled, PoolMode mode, StageTimer* timer,
                  cudaStream_t stream) override {
    const FilterProblem& problem = prepared_problem();
    if (problem.width == 0 || src.width != problem.width || src.height != problem.height ||
        src.format != problem.format || pooled.format != problem.format)
      throw std::invalid_argument("separable_fused: run_pooled on views that do not match the prepared problem");
    if (mode != PoolMode::Max2x2 && mode != PoolMode::Avg2x2)
      throw std::invalid_argument("separable_fused: run_pooled needs max2x2 or avg2x2");
    if (std::string reason = pool_problem(src.width, src.height); !reason.empty())
      throw std::invalid_argument("separable_fused: " + reason);
    if (pooled.width != pooled_side(src.width) || pooled.height != pooled_side(src.height))
      throw std::invalid_argument("separable_fused: the pooled image must be " + std::to_string(pooled_side(src.width)) +
                                  "×" + std::to_string(pooled_side(src.height)));
    if (std::string problem_text = row_alignment_problem(info().id, src, pooled); !problem_text.empty())
      throw std::invalid_argument(problem_text);
    run_fenced(stream, [&] { launch(launch_.pooled_kernel, src, pooled, mode, timer, stream); });
  }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const int radius = problem.params.radius();
    if (radius > kMaxFusedRadius)
      return "radius " + std::to_string(radius) + " exceeds separable_fused's " + std::to_string(kMaxFusedRadius) +
             " (its tile and apron must fit in shared memory): use separable_shared";
    // The device's own limit, where there is a device (an H100 fits every radius up to the maximum).
    const CudaDeviceStatus& device = cuda_device_status();
    const unsigned bytes = fused_launch(problem).shared_bytes;
    if (device.available && bytes > device.shared_memory_per_block_optin)
      return "radius " + std::to_string(radius) + " needs " + kib(bytes) + " of shared memory per block for " +
             to_string(problem.format) + "; " + device.name + " offers " + kib(device.shared_memory_per_block_optin) +
             ": use separable_shared";
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    weights().reserve(static_cast<std::size_t>(2 * kMaxFusedRadius + 1));  // the most weights, once
    weights().set(gaussian_weights_f32(params.sigma, params.radius()));
    launch_ = fused_launch(problem);
    // At most 2^30 pixels / 2048 per tile plus a row and a column of tiles: far below the grid limit.
    if (launch_.blocks <= 0 || launch_.blocks > 0x7fffffffLL)
      throw std::logic_error("separable_fused: a launch of " + std::to_string(launch_.blocks) + " blocks");
    // The kernel's dynamic shared-memory ceiling at its largest radius (the same value for every
    // instance, so instances with different radii never lower it under each other), within what the
    // device allows; method_limits has refused radii beyond that.
    const std::size_t optin = cuda_device_status().shared_memory_per_block_optin;
    const int ceiling = static_cast<int>(std::min<std::size_t>(launch_.kernel_max_shared_bytes, optin));
    for (FusedKernel kernel : {launch_.kernel, launch_.pooled_kernel}) {
      GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ceiling));
      GAUSSLAB_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    }
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    launch(launch_.kernel, src, dst, PoolMode::None, timer, stream);
  }

 private:
  void launch(FusedKernel kernel, const ConstImageView& src, const ImageView& dst, PoolMode pool, StageTimer* timer,
              cudaStream_t stream) {
    const FilterProblem& problem = prepared_problem();
    const FusedProblem fused{problem.width, problem.height, problem.params.radius(), problem.params.border};
    ScopedStage stage(timer, pool == PoolMode::None ? "fused" : "fused + pool 2x2", stream);
    kernel<<<static_cast<unsigned>(launch_.blocks), launch_.threads, launch_.shared_bytes, stream>>>(
        fused, static_cast<const char*>(src.data), src.pitch_bytes, static_cast<char*>(dst.data), dst.pitch_bytes,
        weights().device(), pool);
    GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableFusedKernel", stream);
  }

  FusedLaunch launch_{};
};

}  // namespace

MethodEntry separable_fused_method() {
  MethodInfo info{"separable_fused", "Separable (fused, one kernel)",
                  "One kernel: row pass into a shared-memory tile, column pass from it, each pixel read and written "
                  "once (8 B); 2(2r+1)(1+r/64) multiply-adds per pixel and channel, r = 4σ: near copy bandwidth "
                  "at small σ for F32, radius ≤ 64 (separable_shared is faster beyond r ≈ 22 F32, 24 RGBA8)",
                  "float32 rounding: within 1e-5 of the peak (F32) and 0.51 levels (RGBA8) of the float64 reference",
                  Backend::Cuda};
  info.same_bytes_in_bands = true;
  MethodEntry entry{info, [info] { return std::make_unique<SeparableFused>(info); }};
  entry.fuses_pooling = true;
  return entry;
}

}  // namespace gausslab
