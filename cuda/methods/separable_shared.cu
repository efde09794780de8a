// separable_shared — row pass then column pass, each through shared-memory tiles; the viewer's
// default method.
//
// Algorithm: the separable convolution of NVIDIA's convolutionSeparable sample (V. Podlozhnyuk,
// "Image Convolution with CUDA", 2007) without its limits: a block stages 32 lines × 64 positions in
// shared memory, each thread computes N outputs from a register window, taps come in chunks so
// that any radius runs with the same tile, and outputs are written transposed so that every global
// access is coalesced. The per-thread code is separable_common.cuh; the CPU model runs it
// (tests/cpu/methods/separable/test_separable_shared_texture.cpp).
// Cost: 2(2r+1) multiply-adds per pixel and channel (r = floor(truncate·σ + 0.5)): memory-bound up
// to about σ 6, linear in σ beyond; 40 B of global traffic per RGBA8 pixel, 16 B per F32 pixel.
// Limits: any size up to kMaxPixels, radius 0–2000, all five borders, RGBA8 and F32; rows on 4-byte
// boundaries; scratch: a float intermediate of 16 B (RGBA8) or 4 B (F32) per pixel.
// Accuracy: float32 rounding only, bit for bit the plain loop's; bound (accuracy_bound) 1e-5
// relative (F32), 0.51 levels (RGBA8).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.124 ms, 36 % of copy bandwidth.
// Launch policy, resources and the accuracy table: docs/methods/separable_shared.md.
// 1D signals (FilterAxes::RowsOnly, one 1×N F32 row): the row pass alone, into the destination.
#include <stdexcept>
#include <string>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "separable_common.cuh"

namespace gausslab {

namespace {

using namespace separable;

// ---- kernel ---------------------------------------------------------------------------------------

// One 1D pass over all lines of `pass`; the block's work is in separable_common.cuh.
template <class P, class Lines>
__global__ void __launch_bounds__(P::kThreads, resident_blocks_bound(P::kThreads, P::kMinBlocksPerSm))
    SeparableTilePassKernel(LinePass pass, Lines lines) {
  using In = typename Lines::In;
  using Accum = typename Lines::Accum;
  __shared__ In tile[P::kLines * P::kPitch];
  __shared__ float chunk_weights[P::kChunkTaps];

  const TileBlock block = tile_block<P>(pass, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);
  Accum acc[P::kOutputs];
GAUSSLAB_UNROLL
  for (int j = 0; j < P::kOutputs; ++j) acc[j] = zero_value<Accum>();

  for (int chunk_start = 0; chunk_start < pass.padded_taps; chunk_start += P::kChunkTaps) {
    load_tile_chunk<P>(pass, block, thread, chunk_start, lines, SharedSpan<In>{tile},
                       SharedSpan<float>{chunk_weights});
    __syncthreads();  // the tile and the chunk's weights are complete
    accumulate_tile_chunk<P>(pass, thread, chunk_start, SharedSpan<In>{tile}, SharedSpan<float>{chunk_weights},
                             acc);
    __syncthreads();  // everyone is done reading before the next chunk overwrites
  }
  store_tile_outputs<P>(pass, block, thread, lines, acc);
}

template <class P, class Lines>
void launch_tile_pass(const LinePass& pass, const Lines& lines, cudaStream_t stream) {
  const long long blocks = tile_block_count<P>(pass);
  // At most 2^30 pixels / (32 × 64) rounded up per line group: far below the 2^31 - 1 grid limit.
  if (blocks <= 0 || blocks > 0x7fffffffLL)
    throw std::logic_error("separable_shared: a pass of " + std::to_string(blocks) + " blocks");
  SeparableTilePassKernel<P, Lines><<<static_cast<unsigned>(blocks), P::kThreads, 0, stream>>>(pass, lines);
  GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableTilePassKernel", stream);
}

// Shared memory over L1 for the tile kernels: two RGBA8 column tiles need 95 KiB per SM.
template <class P, class Lines>
void prefer_shared_memory() {
  GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(SeparableTilePassKernel<P, Lines>,
                                           cudaFuncAttributePreferredSharedMemoryCarveout,
                                           cudaSharedmemCarveoutMaxShared));
}

// ---- method ---------------------------------------------------------------------------------------

constexpr std::size_t kRowAlignmentBytes = 128;  // intermediate rows start on a cache line

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

int window_outputs(PixelFormat format) {
  return format == PixelFormat::Rgba8 ? SharedPolicyFor<PixelFormat::Rgba8>::type::kOutputs
                                      : SharedPolicyFor<PixelFormat::F32>::type::kOutputs;
}

std::size_t accum_bytes(PixelFormat format) { return format == PixelFormat::Rgba8 ? sizeof(float4) : sizeof(float); }

class SeparableShared final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return {1e-5, 0.51}; }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    if (problem.params.axes == FilterAxes::RowsOnly && (problem.height != 1 || problem.format != PixelFormat::F32))
      return "separable_shared filters along x only for one float32 signal (a 1×N image: its row pass alone); "
             "this is a " + std::to_string(problem.width) + "×" + std::to_string(problem.height) + " " +
             to_string(problem.format) + " image";
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    weights().reserve(static_cast<std::size_t>(padded_tap_count(kMaxRadius, 8)));  // the longest kernel, once
    weights().set(padded_weights(params.sigma, params.radius(), window_outputs(problem.format)));
    if (params.axes == FilterAxes::RowsOnly) return;  // a signal: the row pass writes the output itself
    // The transposed intermediate: `width` rows of `height` samples.
    intermediate_pitch_bytes_ = round_up(static_cast<std::size_t>(problem.height) * accum_bytes(problem.format),
                                         kRowAlignmentBytes);
    intermediate_.reserve(intermediate_pitch_bytes_ * static_cast<std::size_t>(problem.width),
                          "the float intermediate of " + std::to_string(problem.width) + "×" +
                              std::to_string(problem.height));
    if (!carveout_set_) {
      using Rgba = SharedPolicyFor<PixelFormat::Rgba8>::type;
      using F32 = SharedPolicyFor<PixelFormat::F32>::type;
      prefer_shared_memory<Rgba, PitchedLines<uchar4, float4>>();
      prefer_shared_memory<Rgba, PitchedLines<float4, uchar4>>();
      prefer_shared_memory<F32, PitchedLines<float, float>>();
      carveout_set_ = true;
    }
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = prepared_problem();
    const int radius = problem.params.radius();
    const int taps = static_cast<int>(weights().count());
    const BorderMode border = problem.params.border;
    const float* d_weights = weights().device();
    char* d_intermediate = intermediate_.as<char>();

    if (problem.params.axes == FilterAxes::RowsOnly) {
      // A 1×N float32 signal: the row pass alone. It writes its output transposed, N rows of one
      // sample; at a pitch of one float those rows are the signal itself.
      using P = SharedPolicyFor<PixelFormat::F32>::type;
      ScopedStage stage(timer, "rows", stream);
      const LinePass rows{1, problem.width, radius, taps, border};
      const PitchedLines<float, float> lines{static_cast<const char*>(src.data), src.pitch_bytes,
                                             static_cast<char*>(dst.data), sizeof(float), d_weights};
      launch_tile_pass<P>(rows, lines, stream);
      return;
    }

    dispatch_format(problem.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      using P = typename SharedPolicyFor<F>::type;
      using Storage = typename PixelTraits<F>::Storage;
      using Accum = typename PixelTraits<F>::Accum;
      {
        ScopedStage stage(timer, "rows", stream);
        const LinePass rows{problem.height, problem.width, radius, taps, border};
        const PitchedLines<Storage, Accum> lines{static_cast<const char*>(src.data), src.pitch_bytes, d_intermediate,
                                                 intermediate_pitch_bytes_, d_weights};
        launch_tile_pass<P>(rows, lines, stream);
      }
      {
        ScopedStage stage(timer, "columns", stream);
        const LinePass columns{problem.width, problem.height, radius, taps, border};
        const PitchedLines<Accum, Storage> lines{d_intermediate, intermediate_pitch_bytes_, static_cast<char*>(dst.data),
                                                 dst.pitch_bytes, d_weights};
        launch_tile_pass<P>(columns, lines, stream);
      }
    });
  }

 private:
  ScratchBuffer intermediate_{fence()};
  std::size_t intermediate_pitch_bytes_ = 0;
  bool carveout_set_ = false;
};

}  // namespace

MethodEntry separable_shared_method() {
  MethodInfo info{"separable_shared", "Separable (shared memory)",
                  "Row pass then column pass through 32-line shared-memory tiles, 4–8 outputs per thread; "
                  "2(2r+1) multiply-adds per pixel and channel, r = 4σ: memory-bound at small σ, linear in σ beyond",
                  "float32 rounding: within 1e-5 of the peak (F32) and 0.51 levels (RGBA8) of the float64 reference",
                  Backend::Cuda, /*filters_along_x_only=*/true};
  info.same_bytes_in_bands = true;
  return {info, [info] { return std::make_unique<SeparableShared>(info); }};
}

}  // namespace gausslab
