// separable_fused — row pass and column pass in one kernel, the row-filtered tile kept in shared memory.
//
// Algorithm: one block per output tile of kTileW × kTileH pixels. It copies the tile plus an apron of
// r on every side from the source into shared memory once (cp.async, 4-byte words, every warp
// instruction 32 consecutive pixels of a row), runs the row pass over all kTileH + 2r rows of that
// copy into a shared float tile (kTileH + 2r rows × kTileW, float4 for RGBA8), runs the column pass
// from that tile and writes each output pixel once. The per-thread code (tile geometry, border
// mapping, register windows, the three phases) is in separable_fused_common.cuh, which the CPU model
// in tests/cpu/test_separable_fused.cpp runs unchanged. It is the fusion of separable_shared's two
// passes that NVIDIA's convolutionSeparable sample leaves for later; no published code is copied.
//
// Why it is fast: global traffic per pixel is the source read once (plus the apron, which neighbouring
// tiles also read and L2 mostly serves) and the destination written once: 8 B per pixel for F32 and
// for RGBA8, where separable_shared moves 16 B (F32) and 40 B (RGBA8: 4 + 16 + 16 + 4) through its
// float intermediate in global memory. For small radii that makes F32 memory-bound at about three
// quarters of the copy bandwidth. RGBA8 is not memory-bound: 4 channels × 2(2r + 1) multiply-adds per
// pixel, the byte-to-float conversion of every sample a row-pass window loads and a float-to-int
// conversion per output channel keep it at 30–40 % of copy bandwidth even at r = 2; its gain over
// separable_shared (2.7× at r = 3) is the global traffic. Nsight Compute on the H100 (docs/results/
// ncu.md, 4096²): RGBA8 σ 2 at 81 % of SM peak and 14 % of DRAM peak (compute-bound); F32 7×7 at
// 77 % SM and 53 % DRAM, so the shared-memory row pass, not DRAM, limits it there too. No tile shape
// tried (below) changed either by more than 10 %.
//
// Kernels (FusedPolicyFor in separable_fused_common.cuh), 256 threads each, tile kTileW × kTileH,
// kRowOutputs / kColumnOutputs consecutive outputs per thread in the row / column pass:
//   radius 0–8, one kernel per radius (tap count a template argument: loops fully unrolled, the
//   weights in registers):  F32 64 × 64, 8 / 8;   RGBA8 32 × 64, 8 / 4.
//   radius 9–64, one kernel, run-time tap count (weights read from shared memory as broadcasts):
//                            F32 64 × 64, 8 / 8;   RGBA8 32 × 64, 8 / 4.
// Chosen with a throwaway harness on an H100 (these kernels with other policies, 4096², each variant
// first checked bit for bit against the plain loop on small images, all borders): RGBA8 tiles of
// 64 × 32, 64 × 64 (512 threads), 32 × 128, 128-thread blocks and 4 / 4, 4 / 8, 8 / 8 windows were
// 0–14 % slower than the above (8 / 4 beat 4 / 4 by 4–7 % at r = 2–8 and by 7–18 % at r = 20–64, lost
// 5 % at r = 12); F32 tiles of 128 × 32, 32 × 128, 64 × 128 and 128-thread blocks were up to 3 %
// faster at r = 3 and up to 18 % slower elsewhere; for the run-time F32 kernel 64 × 64 beat 32 × 128
// by 4–7 % at r = 12–20 (3 % slower at r = 32), 16 / 16 windows were 8 % slower at r = 12 and up to
// 8 % faster at r = 64, and reading the weights four at a time (float4 broadcasts) changed nothing
// (±0.5 %), so the weights are read one at a time.
// Row-pass lanes take consecutive tile rows and the raw and h pitches are odd, so shared-memory reads
// and writes are conflict-free (checked by the CPU test); column-pass lanes take consecutive columns.
//
// Radius limit: 64 (kMaxFusedRadius), set by shared memory: the RGBA8 tile with its apron needs
// 220.3 KiB at radius 64 (h 192 × 33 float4 + raw 192 × 161 uchar4), and an H100 block may have 227 KiB;
// F32 needs 194.0 KiB. Larger radii are refused up front ("radius 70 exceeds separable_fused's 64
// (...): use separable_shared"). A GPU with less shared memory per block (Ampere/Ada consumer 99 KiB,
// Turing 64 KiB) refuses the radii whose tile does not fit, naming both sizes; radii 0–8 need at most
// 45.7 KiB (F32) and 56.6 KiB (RGBA8) and run everywhere.
// Switch point: the row pass also filters the 2r apron rows, so the multiply-adds per pixel grow as
// 2(2r + 1)(1 + r / kTileH) while separable_shared's stay 2(2r + 1). Measured on an H100, 4096²,
// reflect: separable_fused is faster up to about radius 15 for F32 (2× at radius 3; 5 % slower at
// radius 20: 0.185 vs 0.177 ms) and up to about radius 24 for RGBA8 (0.605 vs 0.691 ms at radius 20,
// 1.08 vs 0.94 ms at radius 32). Beyond those radii use separable_shared; radii up to 64 still run
// here, for the comparison (the crossover plot of gausslab-bench --sigma-sweep).
//
// Cost as a function of sigma (r = floor(truncate × sigma + 0.5), T = 2r + 1 taps, no zero padding):
// per pixel and channel T (1 + 2r / kTileH) + T multiply-adds; shared-memory loads per output
// (T + N - 1) / N per pass; global loads (kTileW + 2r)(kTileH + 2r) / (kTileW × kTileH) per pixel
// (1.2 at r = 3 for F32). Memory floor for 4096²: 134 MB / ~2.97 TB/s = 0.045 ms, both formats.
//
// Limits: any size from 1×1 to kMaxPixels (one block per tile, a one-dimensional grid: at most
// 2^30 / 2048 + a row and a column of tiles), all five borders (border_index for every apron sample,
// exact also when the radius exceeds the image side), RGBA8 and F32, radius 0–64 (above). No scratch
// in global memory; the weights (at most 129 floats) live in a small per-instance device buffer,
// uploaded on the run's stream when they changed, as in separable_shared. Source and destination rows
// must start on 4-byte boundaries (refused with a message otherwise). A NaN or infinity in an F32
// source reaches exactly the pixels within r of it (no zero-weight padding taps).
//
// Accuracy: float32 rounding only, and the same taps, weights and order of additions as
// separable_shared and separable_texture: the three methods agree bit for bit (the CPU model of this
// kernel equals the plain per-pixel loop bit for bit). Measured with the model against the unrounded
// float64 reference (SeparableFusedAccuracy.DISABLED_Table; F32 = max over a 160×128 astronaut crop,
// a 160×128 Hubble crop and 61×47 noise, relative to max |reference|; RGBA8 = max over the astronaut
// crop and RGBA noise, in 8-bit levels including the final rounding):
//   sigma | F32 max rel. error: reflect mirror nearest constant wrap | RGBA8 max levels (all modes)
//     0.3 | 1.6e-7 1.6e-7 1.6e-7 1.6e-7 1.6e-7                      | 0.4999
//     1   | 2.0e-7 2.0e-7 2.0e-7 2.0e-7 2.0e-7                      | 0.5000
//     2   | 2.5e-7 2.5e-7 2.2e-7 2.5e-7 2.5e-7                      | 0.5000
//     5   | 4.5e-7 4.4e-7 3.8e-7 4.1e-7 4.1e-7                      | 0.5000
//    10   | 6.3e-7 6.3e-7 5.2e-7 5.1e-7 6.8e-7                      | 0.5000
//    16   | 8.7e-7 8.8e-7 6.7e-7 6.1e-7 7.9e-7                      | 0.5000   (radius 64, the largest)
//   Bound (accuracy_bound): max relative error 1e-5 (F32), 0.51 levels (RGBA8), as separable_shared.
//   On the H100 the GPU accuracy sweep's worst case was 0.98 of the RGBA8 bound (0.5 levels: the
//   final rounding), every size, sigma and border within it.
//
// Resources (ptxas, sm_90, no spills; sm_75/86/89 no spills either): F32 radius 0–8 43–58 registers,
// F32 radius 9–64 56; RGBA8 radius 0–8 44–56, RGBA8 radius 9–64 100. Dynamic shared memory (weights +
// h + raw): F32 32.5 KiB (r = 0), 37.2 (r = 3), 45.7 (r = 8), 69.2 (r = 20), 194.0 (r = 64); RGBA8
// 41.3 (r = 0), 46.8 (r = 3), 56.6 (r = 8), 83.5 (r = 20), 220.3 (r = 64). On an H100 that is 5 F32
// blocks (1280 threads) per SM at r = 3, 3–4 RGBA8 blocks at r ≤ 8, 3 F32 / 2 RGBA8 blocks at r = 20.
//
// Measured time (NVIDIA H100 80GB HBM3, 4096², reflect, kernel time, % of the 2973 GB/s copy bandwidth;
// gausslab-bench unless marked *; * = the harness above with these tile shapes, where the run-time
// kernels read the weights four at a time, measured the same as one at a time; separable_shared from
// gausslab-bench in the same session):
//   F32 7×7 (r 3):      0.0614 ms, 74 % of copy   (separable_shared 0.124 ms, 36 %)
//   F32 41×41 (r 20):   0.185 ms*, 24 %           (separable_shared 0.177 ms, 26 %)
//   RGBA8 7×7 (r 3):    0.132 ms*, 34 %           (separable_shared 0.369 ms, 12 %)
//   RGBA8 σ 1 (r 4):    0.145 ms*, 31 %           (separable_shared 0.395 ms, 11 %)
//   RGBA8 σ 2 (r 8):    0.215 ms*, 21 %           (separable_shared 0.449 ms, 10 %)
//   RGBA8 41×41 (r 20): 0.605 ms*,  7 %           (separable_shared 0.691 ms,  7 %)
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "separable_fused_common.cuh"

namespace gausslab {

namespace {

using namespace fused;
using separable::SharedSpan;

// ---- kernel ---------------------------------------------------------------------------------------

// A 4-byte word from global into shared memory without passing through registers (cp.async, sm_80
// and later: every copy of the fill is in flight at once, the registers stay free); a plain load and
// store before sm_80. Completed by wait_async_copies.
__device__ __forceinline__ void copy_word_async(void* shared_dst, const void* global_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(global_src) : "memory");
#else
  *static_cast<unsigned*>(shared_dst) = __ldg(static_cast<const unsigned*>(global_src));
#endif
}

__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

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
    copy_word_async(raw + slot, reinterpret_cast<const In*>(src + static_cast<std::size_t>(source_row) * src_pitch_bytes) +
                                    source_col);
  }
  __device__ void copy_weight(int t) const { shared_weights[t] = weights[t]; }
};

template <class Out>
struct DeviceStore {
  char* dst;
  std::size_t dst_pitch_bytes;
  template <class Accum>
  __device__ void store(int x, int y, Accum value) const {
    reinterpret_cast<Out*>(dst + static_cast<std::size_t>(y) * dst_pitch_bytes)[x] = FromAccum<Out>::convert(value);
  }
};

// One block, one output tile: fill, rows, columns (separable_fused_common.cuh). kTaps > 0: the
// kernel of radius (kTaps - 1) / 2, weights in registers; kTaps = 0: any radius of the policy.
template <class P, class In, int kTaps>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocksPerSm)
    SeparableFusedKernel(FusedProblem problem, const char* src, std::size_t src_pitch_bytes, char* dst,
                         std::size_t dst_pitch_bytes, const float* weights) {
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
  const DeviceStore<In> out{dst, dst_pitch_bytes};
  if constexpr (kTaps > 0) {
    float w[kTaps];
    load_register_weights(SharedSpan<float>{shared_weights}, w);
    row_pass<P, kTaps>(problem, layout, tile, thread, SharedSpan<In>{raw}, w, h);
    __syncthreads();  // h is complete
    column_pass<P, kTaps>(problem, tile, thread, h, w, out);
  } else {
    const SharedSpan<float> w{shared_weights};
    row_pass<P, 0>(problem, layout, tile, thread, SharedSpan<In>{raw}, w, h);
    __syncthreads();  // h is complete
    column_pass<P, 0>(problem, tile, thread, h, w, out);
  }
}

// ---- launch configuration -------------------------------------------------------------------------

using FusedKernel = void (*)(FusedProblem, const char*, std::size_t, char*, std::size_t, const float*);

struct FusedLaunch {
  FusedKernel kernel = nullptr;
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
    launch.kernel = &SeparableFusedKernel<P, In, kTaps>;
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

class SeparableFused final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {1e-5, 0.51}; }

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
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(launch_.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ceiling));
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(launch_.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxShared));
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = prepared_problem();
    const FusedProblem fused{problem.width, problem.height, problem.params.radius(), problem.params.border};
    ScopedStage stage(timer, "fused", stream);
    launch_.kernel<<<static_cast<unsigned>(launch_.blocks), launch_.threads, launch_.shared_bytes, stream>>>(
        fused, static_cast<const char*>(src.data), src.pitch_bytes, static_cast<char*>(dst.data), dst.pitch_bytes,
        weights().device());
    GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableFusedKernel", stream);
  }

 private:
  FusedLaunch launch_{};
};

}  // namespace

MethodEntry separable_fused_method() {
  MethodInfo info{"separable_fused", "Separable (fused, one kernel)",
                  "One kernel: row pass into a shared-memory tile, column pass from it, each pixel read and written "
                  "once (8 B); 2(2r+1)(1+r/64) multiply-adds per pixel and channel, r = 4σ: near copy bandwidth "
                  "at small σ for F32, radius ≤ 64 (separable_shared is faster beyond r ≈ 15 F32, 24 RGBA8)",
                  "float32 rounding: within 1e-5 of the peak (F32) and 0.51 levels (RGBA8) of the float64 reference",
                  Backend::Cuda};
  return {info, [info] { return std::make_unique<SeparableFused>(info); }};
}

}  // namespace gausslab
