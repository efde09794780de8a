// separable_tf32 — the separable Gaussian on the tensor cores for float images: one kernel, each
// 32 × 128 tile read once and written once.
//
// Algorithm (per-lane code and the tile's schedule in separable_tf32_common.cuh; the CPU model in
// tests/cpu/methods/separable/test_separable_tf32.cpp runs that code lane by lane with each warp's mma
// emulated): both 1D passes as mma.sync.m16n8k8 products of the samples (A: 16 lines × 8, from
// shared memory, each block of 8 loaded once for every unit that reads it) with the banded Toeplitz
// matrix of the weights (B, in registers for the whole block); tf32 operands split into a high part
// and a rest (three products a k-step), fp32 accumulation. The row pass writes its results over the
// raw tile in place. Our own design; no published code copied (docs/methods/separable_tf32.md).
// Cost per pixel: 3 kSteps products of 16 × 8 × 8 per 128 outputs and pass (the row pass also over
// the 2R apron rows: × 1.375 at radius 20), kSteps = (radius + 4) / 4 rounded up, 2 to 7 (radius 20:
// 6), whatever the tap count within it.
// Limits: float32 one channel, radius ≤ 24 (sigma 6 at truncate 4), five borders, any size, sm_80 or
// later; 25–58 KiB of shared memory per 256-thread block. An infinite or NaN sample makes NaN up to
// R + 7 pixels away (zero band weights times infinity), where the FIR methods give ±inf within r.
// Accuracy: FIR class: samples kept to 2^-20, weights to 2^-22 of their size, fp32 sums: float-rounding
// size, bound 1e-5 of the peak (tested on the CPU model and the GPU).
// Measured (NVIDIA H200, 4096², reflect, gausslab-bench): 41×41 0.094 ms (separable_fused 0.112),
// radius 24 (sigma 6) 0.104 ms, radius 12 (sigma 3) 0.074 ms, 7×7 0.064 ms (separable_fused 0.048):
// latency-bound, the tensor pipe 42 % busy, plus about one block's lifetime (10 µs) to fill and drain
// the grid (docs/methods/separable_tf32.md).
#include <memory>
#include <stdexcept>
#include <string>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "async_copy.cuh"
#include "separable_tf32_common.cuh"

namespace gausslab {

namespace {

using namespace tf32_fir;

struct DeviceFill {
  const char* src;
  std::size_t pitch;
  float* raw;
  __device__ const float* at(int y, int x) const {
    return reinterpret_cast<const float*>(src + static_cast<std::size_t>(y) * pitch) + x;
  }
  __device__ void copy16(int slot, int y, int x) const { copy_async<16>(raw + slot, at(y, x)); }
  __device__ void copy(int slot, int y, int x) const {
    if (y < 0 || x < 0)
      raw[slot] = 0.0f;
    else
      copy_async<4>(raw + slot, at(y, x));
  }
};

// Product 0, 1 or 2 of unit u's k-step s into acc[u]: A_big B_big, A_small B_big, A_big B_small.
template <int kSteps, int kUnits>
struct DeviceMma {
  const ToeplitzB<kSteps>& b;
  FragC (&acc)[kUnits];
  __device__ __forceinline__ void operator()(int u, int s, const SplitA& a, int product) const {
    mma_1688(acc[u], product == 1 ? a.small : a.big, product == 2 ? b.small[s] : b.big[s]);
  }
};

template <int kSteps>
__global__ void __launch_bounds__(PolicyFor<kSteps>::kThreads,
                                  resident_blocks_bound(PolicyFor<kSteps>::kThreads, PolicyFor<kSteps>::kMinBlocksPerSm))
    SeparableTf32Kernel(Problem p, int radius, bool aligned16, const char* src, std::size_t src_pitch, char* dst,
                        std::size_t dst_pitch, const float* weights) {
  using P = PolicyFor<kSteps>;
  extern __shared__ float4 tf32_shared[];
  float* const raw = reinterpret_cast<float*>(tf32_shared);
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread & 31, warp = thread >> 5;
  const Tile tile = tile_of<P>(p, static_cast<int>(blockIdx.x));

  const DeviceFill fill{src, src_pitch, raw};
  if (warp < P::kWholeGroups) fill_own_group<P>(p, tile, warp, lane, aligned16, fill);
  commit_async_copies();
  if constexpr (P::kTailHalves > 0) fill_tail_rows<P>(p, tile, thread, aligned16, fill);
  commit_async_copies();
  // While the fill is in flight: the Toeplitz fragments (the weights sit kR - radius into W).
  const int shift = P::kR - radius;
  const ToeplitzB<kSteps> b = toeplitz_b<kSteps>(lane, [&](int j) {
    const int t = j - shift;
    return t >= 0 && t <= 2 * radius ? __ldg(weights + t) : 0.0f;
  });
  wait_async_copies_leaving<1>();  // this lane's copies of its warp's own group
  __syncwarp();                 // and the other lanes'

  auto row_block = [&](int group, int block) {
    return split_a(raw[row_a_slot<P>(lane, group, block, 0)], raw[row_a_slot<P>(lane, group, block, 1)],
                   raw[row_a_slot<P>(lane, group, block, 2)], raw[row_a_slot<P>(lane, group, block, 3)]);
  };
  auto store_h = [&](int group, int unit, const FragC& d) {
#pragma unroll
    for (int i = 0; i < 4; i += 2)  // elements i and i + 1: columns 2t and 2t + 1 of one row
      *reinterpret_cast<float2*>(raw + row_d_slot<P>(lane, group, unit, i)) = make_float2(d.v[i], d.v[i + 1]);
  };
  if (warp < P::kWholeGroups) {
    const int group = warp;
    FragC acc[P::kRowUnits] = {};
    walk_blocks<kSteps, P::kRowUnits>([&](int block) { return row_block(group, block); },
                                      DeviceMma<kSteps, P::kRowUnits>{b, acc});
    __syncwarp();
#pragma unroll
    for (int u = 0; u < P::kRowUnits; ++u) store_h(group, u, acc[u]);
  }
  if constexpr (P::kTailHalves > 0) {
    wait_async_copies();
    __syncthreads();  // the tail rows are complete (every thread copied some)
    FragC tail[2] = {};
    const int tail_group = P::kWholeGroups + warp / 2, half = warp % 2;
    if (warp < P::kTailHalves)
      walk_blocks<kSteps, 2>([&](int block) { return row_block(tail_group, 2 * half + block); },
                             DeviceMma<kSteps, 2>{b, tail});
    __syncthreads();  // the tail groups' raw rows are read (both halves)
    if (warp < P::kTailHalves) {
      store_h(tail_group, 2 * half, tail[0]);
      store_h(tail_group, 2 * half + 1, tail[1]);
    }
  }
  __syncthreads();  // h is complete

  const ColumnStrip strip = column_strip<P>(warp);
  FragC acc[P::kColumnUnits] = {};
  walk_blocks<kSteps, P::kColumnUnits>(
      [&](int block) {
        return split_a(raw[column_a_slot<P>(lane, strip, block, 0)], raw[column_a_slot<P>(lane, strip, block, 1)],
                       raw[column_a_slot<P>(lane, strip, block, 2)], raw[column_a_slot<P>(lane, strip, block, 3)]);
      },
      DeviceMma<kSteps, P::kColumnUnits>{b, acc});
#pragma unroll
  for (int q = 0; q < P::kColumnUnits; ++q) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Coord o = column_output(lane, strip, q, i);
      const int x = tile.x0 + o.col, y = tile.y0 + o.row;
      if (y < p.height && x < p.width)
        reinterpret_cast<float*>(dst + static_cast<std::size_t>(y) * dst_pitch)[x] = acc[q].v[i];
    }
  }
}

using Tf32Kernel = void (*)(Problem, int, bool, const char*, std::size_t, char*, std::size_t, const float*);

struct Tf32Launch {
  Tf32Kernel kernel = nullptr;
  int threads = 0;
  long long blocks = 0;
  unsigned shared_bytes = 0;
};

template <int kSteps>
Tf32Launch launch_for(int width, int height) {
  using P = PolicyFor<kSteps>;
  return {&SeparableTf32Kernel<kSteps>, P::kThreads, tile_count<P>(width, height), P::kSharedBytes};
}

Tf32Launch tf32_launch(int width, int height, int radius) {
  switch (steps_for_radius(radius)) {
    case 2: return launch_for<2>(width, height);
    case 3: return launch_for<3>(width, height);
    case 4: return launch_for<4>(width, height);
    case 5: return launch_for<5>(width, height);
    case 6: return launch_for<6>(width, height);
    case 7: return launch_for<7>(width, height);
    default: throw std::logic_error("separable_tf32: radius " + std::to_string(radius) + " has no kernel");
  }
}

class SeparableTf32 final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    if (problem.format != PixelFormat::F32)
      return "separable_tf32 filters float images (its split operands are for float samples): for RGBA8 use "
             "separable_fused or multires";
    const int radius = problem.params.radius();
    if (radius > kMaxTf32Radius)
      return "radius " + std::to_string(radius) + " exceeds separable_tf32's " + std::to_string(kMaxTf32Radius) +
             " (its weights stay in registers): use separable_fused";
    return tensor_core_refusal("separable_tf32", "the tensor cores' tf32 mma");
  }

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {1e-5, 0.51}; }

  void on_prepare(const FilterProblem& problem) override {
    weights().reserve(static_cast<std::size_t>(2 * kMaxTf32Radius + 1));
    weights().set(gaussian_weights_f32(problem.params.sigma, problem.params.radius()));
    launch_ = tf32_launch(problem.width, problem.height, problem.params.radius());
    if (launch_.blocks <= 0 || launch_.blocks > 0x7fffffffLL)
      throw std::logic_error("separable_tf32: a launch of " + std::to_string(launch_.blocks) + " blocks");
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(launch_.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(launch_.shared_bytes)));
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(launch_.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxShared));
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = prepared_problem();
    const Problem p{problem.width, problem.height, problem.params.border};
    ScopedStage stage(timer, "tf32", stream);
    launch_.kernel<<<static_cast<unsigned>(launch_.blocks), launch_.threads, launch_.shared_bytes, stream>>>(
        p, problem.params.radius(), rows_aligned(src, 16),
        static_cast<const char*>(src.data), src.pitch_bytes, static_cast<char*>(dst.data), dst.pitch_bytes,
        weights().device());
    GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableTf32Kernel", stream);
  }

 private:
  Tf32Launch launch_{};
};

}  // namespace

MethodEntry separable_tf32_method() {
  MethodInfo info{"separable_tf32", "Separable (tensor cores, float)",
                  "Both passes as tf32 tensor-core products with the Toeplitz matrix of the weights (operands "
                  "split into a high part and a rest, three products, fp32 sums), one kernel per 32×128 tile; "
                  "F32, radius ≤ 24, sm_80+",
                  "float rounding class: within 1e-5 of the peak against the float64 reference", Backend::Cuda};
  return {info, [info] { return std::make_unique<SeparableTf32>(info); }};
}

}  // namespace gausslab
