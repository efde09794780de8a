// separable_mma — the separable Gaussian on the tensor cores, RGBA8, radius <= 12 (sigma <= 3 at
// truncate 4): one kernel, each 64×64 tile read once and written once.
//
// Algorithm (docs/methods/separable_mma.md; per-lane code in separable_mma_common.cuh, run lane by
// lane by tests/cpu/methods/separable/, which emulates each warp's mma from the PTX fragment
// layouts): both 1D passes as mma.sync.m16n8k16 products with the banded Toeplitz matrix of the
// weights, fp16 operands, fp32 accumulation. 8-bit samples are exact in fp16; the weights and the row
// pass's results are split into fp16 high and low halves, so the products keep float precision
// (h = x (w_hi + w_lo); y = h_hi w_hi + h_hi w_lo + h_lo w_hi). No published code is copied.
// Cost per RGBA pixel: 0.33 (r <= 4) to 0.66 mma of 16 × 8 × 16, whatever sigma within the limit;
// 8 B of global traffic (the apron from L2).
// Limits: 8-bit images only (bytes are exact in fp16, 16-bit levels and floats are not: fp16 keeps 11
// bits), RGBA8 as it is and 1-3 channels widened to RGBA8; radius 0-12, five borders, any size, sm_80
// or later; 64 or 92 KiB of shared
// memory per 256-thread block.
// Accuracy: FIR class (kFloatRoundingBound); worst on the H100 GPU sweep 0.50 levels.
// Measured (NVIDIA H100 80GB HBM3, 4096², reflect): 0.260 ms at sigma 0.5, 0.363 ms at sigma 2 —
// slower than separable_fused (0.115, 0.211): 24 % of warps active, tensor pipe 12 % (the plane fill
// and the hi/lo split cost more than the products). auto does not choose it.
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "separable_mma_common.cuh"

namespace gausslab {

namespace {

using namespace mma_fir;

struct DeviceSource {
  const char* src;
  std::size_t pitch;
  __device__ uchar4 load(int x, int y) const {
    return reinterpret_cast<const uchar4*>(src + static_cast<std::size_t>(y) * pitch)[x];
  }
};
struct DevicePlanes {
  unsigned* words;
  int channel_words;
  __device__ void store(int channel, int word, unsigned value) const { words[channel * channel_words + word] = value; }
};
struct DeviceWords {
  const unsigned* words;
  __device__ unsigned operator[](int i) const { return words[i]; }
};
struct DeviceHt {
  unsigned short* halves;
  int plane_halves;
  __device__ void store(int which, int index, unsigned short bits) const { halves[which * plane_halves + index] = bits; }
};
struct DeviceWeights {
  const unsigned short* bits;
  __device__ unsigned short operator[](int t) const { return bits[t]; }
};

template <int kSteps>
__global__ void __launch_bounds__(256) SeparableMmaKernel(TileProblem p, const char* src, std::size_t src_pitch,
                                                          char* dst, std::size_t dst_pitch,
                                                          const unsigned short* weights) {
  using P = Policy<kSteps>;
  extern __shared__ unsigned mma_shared[];
  constexpr int kChannelWords = P::kPlaneRows * P::kPlanePitch / 2;
  constexpr int kHtHalves = P::kTile * P::kHtPitch;
  unsigned* const planes = mma_shared;
  unsigned short* const ht = reinterpret_cast<unsigned short*>(mma_shared + 4 * kChannelWords);
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread & 31, warp = thread >> 5;
  const TileOrigin tile = tile_of<P>(p, static_cast<int>(blockIdx.x));

  FragB b_hi[kSteps], b_lo[kSteps];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    b_hi[s] = toeplitz_fragment(lane, s, p.radius, DeviceWeights{weights});
    b_lo[s] = toeplitz_fragment(lane, s, p.radius, DeviceWeights{weights + 2 * p.radius + 1});
  }
  fill_planes<P>(p, tile, thread, DeviceSource{src, src_pitch}, DevicePlanes{planes, kChannelWords});
  __syncthreads();

  FragC out[4][P::kColumnItemsPerWarp];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    for (int item = warp; item < P::kRowPassItems; item += P::kWarps) {
      const RowItem it = row_item<P>(item);
      FragC d{};
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        const FragA a = load_a(lane, DeviceWords{planes + c * kChannelWords}, P::kPlanePitch, it.line0, it.out0 + 16 * s);
        mma_16816(d, a, b_hi[s]);
        mma_16816(d, a, b_lo[s]);
      }
      store_row_result<P>(lane, it, d, DeviceHt{ht, kHtHalves});
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < P::kColumnItemsPerWarp; ++j) {
      const ColumnItem it = column_item<P>(warp + j * P::kWarps);
      FragC d{};
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        const DeviceWords hi{reinterpret_cast<const unsigned*>(ht)};
        const DeviceWords lo{reinterpret_cast<const unsigned*>(ht + kHtHalves)};
        const FragA a_hi = load_a(lane, hi, P::kHtPitch, it.col0, it.row0 + 16 * s);
        const FragA a_lo = load_a(lane, lo, P::kHtPitch, it.col0, it.row0 + 16 * s);
        mma_16816(d, a_hi, b_hi[s]);
        mma_16816(d, a_hi, b_lo[s]);
        mma_16816(d, a_lo, b_hi[s]);
      }
      out[c][j] = d;
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < P::kColumnItemsPerWarp; ++j) {
    const ColumnItem it = column_item<P>(warp + j * P::kWarps);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Coord o = output_of(lane, it, i);
      const int x = tile.x0 + o.col, y = tile.y0 + o.row;
      if (x < p.width && y < p.height)
        reinterpret_cast<uchar4*>(dst + static_cast<std::size_t>(y) * dst_pitch)[x] =
            make_uchar4(to_unorm8(out[0][j].v[i]), to_unorm8(out[1][j].v[i]), to_unorm8(out[2][j].v[i]),
                        to_unorm8(out[3][j].v[i]));
    }
  }
}

// The weights for the kernel: fp16 halves, hi for t = 0..2r then lo, two halves per float of the
// weights buffer (DeviceWeights carries floats; the kernel reads the same bytes as halves).
std::vector<float> weight_halves(const FilterParams& params) {
  const std::vector<double> w = gaussian_weights(params.sigma, params.radius());
  std::vector<unsigned short> halves(2 * w.size() + 1, 0);  // + 1: a whole number of floats
  for (std::size_t t = 0; t < w.size(); ++t) {
    const unsigned short hi = half_bits(static_cast<float>(w[t]));
    halves[t] = hi;
    halves[w.size() + t] = half_bits(static_cast<float>(w[t] - static_cast<double>(half_value(hi))));
  }
  std::vector<float> packed((halves.size() + 1) / 2);
  std::memcpy(packed.data(), halves.data(), halves.size() * sizeof(unsigned short));
  return packed;
}

class SeparableMma final : public BytesAsRgba8GpuMethod {
 public:
  using BytesAsRgba8GpuMethod::BytesAsRgba8GpuMethod;

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const int radius = problem.params.radius();
    if (radius > Policy<2>::kMaxRadius)
      return "radius " + std::to_string(radius) + " exceeds separable_mma's 12 (K = 32 samples per tensor-core "
             "product): use separable_fused or multires";
    return tensor_core_refusal("separable_mma", "the tensor cores' mma.m16n8k16");
  }

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return kFloatRoundingBound; }

  void on_prepare(const FilterProblem& problem) override {
    weights().reserve(2 * Policy<2>::kMaxRadius + 2);  // 2 × 25 halves in 26 floats
    weights().set(weight_halves(problem.params), "the weights' fp16 halves");
    set_shared_memory(SeparableMmaKernel<1>, Policy<1>::kSharedBytes, Carveout::Default);
    set_shared_memory(SeparableMmaKernel<2>, Policy<2>::kSharedBytes, Carveout::Default);
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = kernel_problem();
    const TileProblem p{problem.width, problem.height, problem.params.radius(), problem.params.border};
    const auto* halves = reinterpret_cast<const unsigned short*>(weights().device());
    ScopedStage stage(timer, "mma", stream);
    if (p.radius <= Policy<1>::kMaxRadius) {
      const unsigned blocks = grid_blocks(block_count<Policy<1>>(p), "separable_mma: SeparableMmaKernel");
      SeparableMmaKernel<1><<<blocks, Policy<1>::kThreads, Policy<1>::kSharedBytes, stream>>>(
          p, static_cast<const char*>(src.data), src.pitch_bytes, static_cast<char*>(dst.data), dst.pitch_bytes,
          halves);
    } else {
      const unsigned blocks = grid_blocks(block_count<Policy<2>>(p), "separable_mma: SeparableMmaKernel");
      SeparableMmaKernel<2><<<blocks, Policy<2>::kThreads, Policy<2>::kSharedBytes, stream>>>(
          p, static_cast<const char*>(src.data), src.pitch_bytes, static_cast<char*>(dst.data), dst.pitch_bytes,
          halves);
    }
    GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableMmaKernel", stream);
  }
};

}  // namespace

MethodEntry separable_mma_method() {
  MethodInfo info{"separable_mma", "Separable (tensor cores, RGBA8)",
                  "Both passes as tensor-core products with the Toeplitz matrix of the weights (fp16 hi/lo split, "
                  "fp32 accumulation), one kernel per 64×64 tile; radius ≤ 12 (σ ≤ 3), RGBA8, sm_80+",
                  {}, Backend::Cuda};
  // exact for bytes only (below); 1-3 channels widened to RGBA8
  info.formats = FormatSet::of_samples({SampleType::U8});
  info.accuracy = accuracy_promise("split fp16 products, the FIR class", kFloatRoundingBound, info.formats);
  return {info, [info] { return std::make_unique<SeparableMma>(info); }};
}

}  // namespace gausslab
