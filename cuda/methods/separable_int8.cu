// separable_int8 — the separable Gaussian for RGBA8 on the tensor cores' integer products: one
// kernel, each tile read once and written once.
//
// Algorithm (per-lane code in separable_int8_common.cuh; the CPU model in
// tests/cpu/methods/separable/test_separable_int8.cpp runs it lane by lane with each warp's mma
// emulated from the PTX fragment layouts): both 1D passes as mma.sync.m16n8k32 products of the
// banded Toeplitz matrix of the weights (A: 16 outputs × 32 samples, one per byte of the 24-bit
// integer weights, in registers for the whole block) with 8-bit samples (B: 32 samples × 8 lines of
// one channel), s32 accumulation: exact integer sums. The row pass takes the pixels' bytes as they
// are (a 16-byte load and eight byte permutes per 4 pixels: no conversion); its result, rounded to
// 16 bits per channel, is split into two bytes for the column pass. Our own design; no published
// code copied (docs/methods/separable_int8.md).
// Cost per RGBA pixel and k-step (32 samples; radius 8 needs 1, 24 needs 2, 40 needs 3): 3 products
// of 16 × 8 × 32 per 128 row outputs of a channel (× (TileY + 2 kPad) / TileY for the apron rows) and
// 5 per 128 column outputs: the same cost for every radius within a step.
// Limits: 8-bit images only (the products are exact for bytes: 16-bit or float samples are not
// bytes), RGBA8 as it is and 1-3 channels widened to RGBA8; radius ≤ 40 (sigma 10 at truncate 4),
// five borders, any size, sm_80 or later.
// Accuracy: FIR class: exact integer sums of 24-bit weights, the row result kept to 2^-9 of a level:
// within 0.505 levels of the exact Gaussian (bound kFloatRoundingBound).
// Measured (NVIDIA H100 80GB HBM3, 4096², reflect, gausslab-bench): sigma 2 0.0861 ms (52 % of the
// copy bandwidth; separable_fused 0.172), sigma 4 0.1415 ms (multires 0.279): bound by its
// instruction stream and dependency chains, the tensor pipe 36-46 % busy (docs/methods/separable_int8.md).
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
#include "async_copy.cuh"
#include "separable_int8_common.cuh"

namespace gausslab {

namespace {

using namespace int8_fir;

struct DeviceFill {
  const char* src;
  std::size_t pitch;
  unsigned* raw;
  __device__ const unsigned* at(int y, int x) const {
    return reinterpret_cast<const unsigned*>(src + static_cast<std::size_t>(y) * pitch) + x;
  }
  __device__ void copy16(int slot, int y, int x) const { copy_async<16>(raw + slot, at(y, x)); }
  __device__ void copy(int slot, int y, int x) const {
    if (y < 0 || x < 0)
      raw[slot] = 0u;
    else
      copy_async<4>(raw + slot, at(y, x));
  }
};
struct DeviceRaw {
  const unsigned* raw;
  __device__ Quad quad(int word) const {
    const uint4 v = *reinterpret_cast<const uint4*>(raw + word);
    return {{v.x, v.y, v.z, v.w}};
  }
};
struct DeviceH {
  unsigned* h;
  __device__ void store(int word, unsigned value) const { h[word] = value; }
  __device__ Pair pair(int word) const {
    const uint2 v = *reinterpret_cast<const uint2*>(h + word);
    return {{v.x, v.y}};
  }
};

// 256 threads and no minimum of blocks an SM: an explicit minimum of 1 let ptxas take 86 registers
// for the radius-8 kernel where it takes 55 without one (measured on the H100, docs/methods/separable_int8.md).
template <class P>
__global__ void __launch_bounds__(256) SeparableInt8Kernel(TileProblem p, bool aligned16, bool aligned8_dst,
                                                          const char* src, std::size_t src_pitch, char* dst,
                                                          std::size_t dst_pitch, const unsigned* fragments) {
  constexpr int kSteps = P::kSteps;
  extern __shared__ uint4 int8_shared[];
  unsigned* const raw = reinterpret_cast<unsigned*>(int8_shared);
  unsigned* const h = raw + P::kRawBytes / 4;
  const int thread = static_cast<int>(threadIdx.x);
  const int lane = thread & 31, warp = thread >> 5;
  const TileOrigin tile = tile_of<P>(p, static_cast<int>(blockIdx.x));
  // Inside the image with 8-byte aligned rows: every lane stores its two pixel pairs unchecked.
  const bool whole_tile = aligned8_dst && tile.x0 + P::kTileW <= p.width && tile.y0 + P::kTileH <= p.height;
  fill_raw<P>(p, tile, thread, aligned16, DeviceFill{src, src_pitch, raw});
  // While the fill is in flight: the weights' A fragments, built on the host for every lane.
  FragA w[kSteps][3];
#pragma unroll
  for (int s = 0; s < kSteps; ++s)
#pragma unroll
    for (int byte = 0; byte < 3; ++byte) {
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(fragments + fragment_index(s, byte, lane)));
      w[s][byte] = {{v.x, v.y, v.z, v.w}};
    }
  wait_async_copies();
  __syncthreads();  // raw is complete

  // One row-pass unit: 8 raw rows × 16 outputs, the four channels, into h.
  auto row_unit_work = [&](int pass, int unit) {
    const RowUnit u = row_unit<P>(pass, unit);
    FragB b[kSteps][4];
#pragma unroll
    for (int s = 0; s < kSteps; ++s) row_samples<P>(lane, u, s, DeviceRaw{raw}, b[s]);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      FragC d[3];
#pragma unroll
      for (int byte = 0; byte < 3; ++byte) mma_u8_first(d[byte], w[0][byte], b[0][c], row_sum_start(byte));
#pragma unroll
      for (int s = 1; s < kSteps; ++s)
#pragma unroll
        for (int byte = 0; byte < 3; ++byte) mma_u8(d[byte], w[s][byte], b[s][c]);
      store_row_result<P>(lane, u, c, d, DeviceH{h});
    }
  };
  // One column-pass unit: 16 output rows × 8 columns, the four channels, stored.
  auto column_unit_work = [&](int pass, int unit) {
    const ColumnUnit u = column_unit<P>(pass, unit);
    unsigned out[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      FragC sums[3];
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        FragB b_hi, b_lo;
        column_samples<P>(lane, u, c, s, DeviceH{h}, b_hi, b_lo);
#pragma unroll
        for (int i = 0; i < kColumnProducts; ++i) {
          const ColumnProduct q = column_product(i);
          if (s == 0 && q.first)
            mma_u8_first(sums[q.sum], w[0][q.byte], q.low ? b_lo : b_hi, column_sum_start(q.sum));
          else
            mma_u8(sums[q.sum], w[s][q.byte], q.low ? b_lo : b_hi);
        }
      }
      add_column_result(c, sums, out);
    }
    // Elements 0, 1 (and 2, 3): two adjacent pixels of one row.
#pragma unroll
    for (int pair = 0; pair < 2; ++pair) {
      const Coord o = output_of(lane, u, 2 * pair);
      const int x = tile.x0 + o.col, y = tile.y0 + o.row;
      unsigned* row = reinterpret_cast<unsigned*>(dst + static_cast<std::size_t>(y) * dst_pitch);
      if (whole_tile) {
        *reinterpret_cast<uint2*>(row + x) = make_uint2(out[2 * pair], out[2 * pair + 1]);
      } else if (y < p.height) {
        if (x < p.width) row[x] = out[2 * pair];
        if (x + 1 < p.width) row[x + 1] = out[2 * pair + 1];
      }
    }
  };

#pragma unroll 1
  for (int pass = 0; pass < P::kPasses; ++pass) {
    if (pass > 0) __syncthreads();  // the last pass's column reads of h are done
    // Unrolled, a warp's units interleave (their products and sums overlap); measured per policy.
    if constexpr (P::kUnrollRows) {
#pragma unroll
      for (int i = 0; i < (P::kRowUnits + P::kWarps - 1) / P::kWarps; ++i)
        if (warp + i * P::kWarps < P::kRowUnits) row_unit_work(pass, warp + i * P::kWarps);
    } else {
      for (int unit = warp; unit < P::kRowUnits; unit += P::kWarps) row_unit_work(pass, unit);
    }
    __syncthreads();  // h is complete
    if constexpr (P::kUnrollColumns) {
#pragma unroll
      for (int j = 0; j < P::kColumnUnitsPerWarp; ++j) column_unit_work(pass, warp + j * P::kWarps);
    } else {
#pragma unroll 1
      for (int j = 0; j < P::kColumnUnitsPerWarp; ++j) column_unit_work(pass, warp + j * P::kWarps);
    }
  }
}

using Int8Kernel = void (*)(TileProblem, bool, bool, const char*, std::size_t, char*, std::size_t, const unsigned*);
struct Int8Launch {
  Int8Kernel kernel = nullptr;
  int steps = 0;
  long long blocks = 0;
  unsigned grid = 0;  // blocks, checked (on_prepare)
  unsigned shared_bytes = 0;
};
template <int kSteps>
Int8Launch launch_for(const TileProblem& p) {
  using P = typename PolicyFor<kSteps>::type;
  return {&SeparableInt8Kernel<P>, kSteps, block_count<P>(p), 0, P::kSharedBytes};
}

constexpr int kMaxInt8Radius = PolicyFor<3>::type::kMaxRadius;  // 40

// The weights' A fragments for every lane, [step][byte][lane][register], as the floats the weights
// buffer carries (the kernel reads the same bytes as words).
std::vector<float> fragment_table(const FilterParams& params, int steps) {
  const int radius = params.radius();
  const std::vector<double> w = gaussian_weights(params.sigma, radius);
  std::vector<std::uint32_t> codes(w.size());
  for (std::size_t t = 0; t < w.size(); ++t) codes[t] = weight_code(w[t]);
  const int pad = 16 * steps - 8;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(fragment_index(steps, 0, 0)));
  for (int s = 0; s < steps; ++s)
    for (int byte = 0; byte < 3; ++byte)
      for (int lane = 0; lane < 32; ++lane) {
        const FragA a = weight_fragment(lane, s, byte, pad, radius, codes);
        std::memcpy(&words[static_cast<std::size_t>(fragment_index(s, byte, lane))], a.r, sizeof a.r);
      }
  std::vector<float> packed(words.size());
  std::memcpy(packed.data(), words.data(), words.size() * sizeof(std::uint32_t));
  return packed;
}

class SeparableInt8 final : public BytesAsRgba8GpuMethod {
 public:
  using BytesAsRgba8GpuMethod::BytesAsRgba8GpuMethod;

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const int radius = problem.params.radius();
    if (radius > kMaxInt8Radius)
      return "radius " + std::to_string(radius) + " exceeds separable_int8's " + std::to_string(kMaxInt8Radius) +
             " (three 32-sample steps): use multires";
    return tensor_core_refusal("separable_int8", "the tensor cores' integer mma");
  }

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return kFloatRoundingBound; }

  void on_prepare(const FilterProblem& problem) override {
    const TileProblem p{problem.width, problem.height, problem.params.radius(), problem.params.border};
    switch (steps_for_radius(p.radius)) {
      case 1: launch_ = launch_for<1>(p); break;
      case 2: launch_ = launch_for<2>(p); break;
      case 3: launch_ = launch_for<3>(p); break;
      default: throw std::logic_error("separable_int8: radius " + std::to_string(p.radius) + " has no kernel");
    }
    launch_.grid = grid_blocks(launch_.blocks, "separable_int8: SeparableInt8Kernel");
    weights().reserve(static_cast<std::size_t>(fragment_index(3, 0, 0)));
    weights().set(fragment_table(problem.params, launch_.steps), "the weights' tensor-core fragments");
    set_shared_memory(launch_.kernel, launch_.shared_bytes, Carveout::PreferShared);
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = kernel_problem();
    const TileProblem p{problem.width, problem.height, problem.params.radius(), problem.params.border};
    ScopedStage stage(timer, "int8", stream);
    launch_.kernel<<<launch_.grid, 256, launch_.shared_bytes, stream>>>(
        p, rows_aligned(src, 16), rows_aligned(dst, 8), static_cast<const char*>(src.data), src.pitch_bytes,
        static_cast<char*>(dst.data), dst.pitch_bytes, reinterpret_cast<const unsigned*>(weights().device()));
    GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableInt8Kernel", stream);
  }

 private:
  Int8Launch launch_{};
};

}  // namespace

MethodEntry separable_int8_method() {
  MethodInfo info{"separable_int8", "Separable (tensor cores, 8-bit integer)",
                  "Both passes as 8-bit integer tensor-core products with the Toeplitz matrix of 24-bit integer "
                  "weights (exact sums; the row result kept to 16 bits), one kernel per tile; RGBA8, radius ≤ 40 "
                  "(σ ≤ 10), sm_80+",
                  {}, Backend::Cuda};
  // exact for bytes only (below); 1-3 channels widened to RGBA8
  info.formats = FormatSet::of_samples({SampleType::U8});
  info.accuracy = accuracy_promise("exact integer sums, the FIR class", kFloatRoundingBound, info.formats);
  // Exact integer sums of each pixel's own window (the zero taps of the padded band add nothing), so a
  // band of rows gives the single pass's bytes wherever the tiles fall.
  info.same_bytes_in_bands = true;
  return {info, [info] { return std::make_unique<SeparableInt8>(info); }};
}

}  // namespace gausslab
