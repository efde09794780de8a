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
// Limits: any size up to kMaxPixels, radius 0–2000, all five borders, every format (RGBA8, F32, RGBA16
// and RGBA32F compiled, the rest as F32 planes, gpu_method.hpp); rows on whole pixels (4, 8, 16 bytes)
// or samples; scratch: a float intermediate of 16 B (RGBA) or 4 B (F32) per pixel. Custom separable
// kernels (docs/kernels.md: odd masks of any weights, an x/y pair of two lengths, a rank-1 matrix's
// factors; correlate or convolve, --normalize's one division in the final store) and --rounding
// floor/ceil (the final store, StoreRule).
// Accuracy: float32 rounding only, bit for bit the plain loop's; bound kFloatRoundingBound
// (accuracy_promise.hpp), half a level more with floor or ceil (with_rounding).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.124 ms, 36 % of copy bandwidth.
// Launch policy, resources and the accuracy table: docs/methods/separable_shared.md.
// 1D signals (FilterAxes::RowsOnly, one 1×N F32 row): the row pass alone, into the destination.
#include <stdexcept>
#include <string>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "float_fir_method.hpp"
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
  // At most 2^30 pixels / (32 × 64) rounded up per line group: far below the 2^31 - 1 grid limit.
  const unsigned blocks =
      GpuMethod::grid_blocks(tile_block_count<P>(pass), "separable_shared: SeparableTilePassKernel");
  SeparableTilePassKernel<P, Lines><<<blocks, P::kThreads, 0, stream>>>(pass, lines);
  GAUSSLAB_CUDA_CHECK_LAUNCH("SeparableTilePassKernel", stream);
}

// Shared memory over L1 for the tile kernels: two RGBA8 column tiles need 95 KiB per SM.
template <class P, class Lines>
void prefer_shared_memory() {
  GpuMethod::set_shared_memory(SeparableTilePassKernel<P, Lines>, 0, GpuMethod::Carveout::PreferShared);
}

// ---- method ---------------------------------------------------------------------------------------

constexpr std::size_t kRowAlignmentBytes = 128;  // intermediate rows start on a cache line

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// The formats the kernels are compiled for (FloatFirMethod::route); the others run as F32 planes.
using NativeFormats = RgbaAndFloatFormats;

int window_outputs(PixelFormat format) {
  int outputs = 0;
  dispatch_format(NativeFormats{}, format,
                  [&](auto tag) { outputs = SharedPolicyFor<decltype(tag)::value>::type::kOutputs; });
  return outputs;
}

std::size_t accum_bytes(PixelFormat format) {
  std::size_t bytes = 0;
  dispatch_format(NativeFormats{}, format, [&](auto tag) { bytes = sizeof(PixelAccum<decltype(tag)::value>); });
  return bytes;
}

// Every kernel of a format: its row pass (storage → float) and its column pass (float → storage).
template <PixelFormat F>
void prefer_shared_memory_for() {
  using P = typename SharedPolicyFor<F>::type;
  prefer_shared_memory<P, PitchedLines<PixelStorage<F>, PixelAccum<F>>>();
  prefer_shared_memory<P, PitchedLines<PixelAccum<F>, PixelStorage<F>>>();
}

class SeparableShared final : public FloatFirMethod {
 public:
  using FloatFirMethod::FloatFirMethod;

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    if (problem.params.axes == FilterAxes::RowsOnly &&
        (problem.height != 1 || kernel_format(problem.format) != PixelFormat::F32))
      return "separable_shared filters along x only for one signal of float32 or 1-3 channel samples (a 1×N "
             "image: its row pass alone, a channel at a time); this is a " + std::to_string(problem.width) + "×" +
             std::to_string(problem.height) + " " + to_string(problem.format) + " image";
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    // The longest kernel, once: a custom pair's two longest masks.
    weights().reserve(2 * static_cast<std::size_t>(padded_tap_count(kMaxMaskTaps / 2, 8)));
    passes_ = pass_weights(params, window_outputs(problem.format));
    weights().set(passes_.weights);
    if (params.axes == FilterAxes::RowsOnly) return;  // a signal: the row pass writes the output itself
    // The transposed intermediate: `width` rows of `height` samples.
    intermediate_pitch_bytes_ = round_up(static_cast<std::size_t>(problem.height) * accum_bytes(problem.format),
                                         kRowAlignmentBytes);
    intermediate_.reserve(intermediate_pitch_bytes_ * static_cast<std::size_t>(problem.width),
                          "the float intermediate of " + std::to_string(problem.width) + "×" +
                              std::to_string(problem.height));
    if (!carveout_set_.contains(problem.format)) {
      dispatch_format(NativeFormats{}, problem.format,
                      [&](auto tag) { prefer_shared_memory_for<decltype(tag)::value>(); });
      carveout_set_ = carveout_set_ | FormatSet{problem.format};
    }
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterProblem& problem = kernel_problem();
    const BorderMode border = problem.params.border;
    const float* d_weights = weights().device();
    // The final pass stores by the kernel's divisor and the rounding asked for.
    const StoreRule rule{passes_.divisor, problem.params.rounding};
    char* d_intermediate = intermediate_.as<char>();

    if (problem.params.axes == FilterAxes::RowsOnly) {
      // A 1×N float32 signal: the row pass alone. It writes its output transposed, N rows of one
      // sample; at a pitch of one float those rows are the signal itself.
      using P = SharedPolicyFor<PixelFormat::F32>::type;
      ScopedStage stage(timer, "rows", stream);
      const LinePass rows{1, problem.width, passes_.row_radius, passes_.row_taps, border};
      const PitchedLines<float, float> lines{static_cast<const char*>(src.data), src.pitch_bytes,
                                             static_cast<char*>(dst.data), sizeof(float), d_weights, rule};
      launch_tile_pass<P>(rows, lines, stream);
      return;
    }

    dispatch_format(NativeFormats{}, problem.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      using P = typename SharedPolicyFor<F>::type;
      using Storage = typename PixelTraits<F>::Storage;
      using Accum = typename PixelTraits<F>::Accum;
      {
        ScopedStage stage(timer, "rows", stream);
        const LinePass rows{problem.height, problem.width, passes_.row_radius, passes_.row_taps, border};
        const PitchedLines<Storage, Accum> lines{static_cast<const char*>(src.data), src.pitch_bytes, d_intermediate,
                                                 intermediate_pitch_bytes_, d_weights};
        launch_tile_pass<P>(rows, lines, stream);
      }
      {
        ScopedStage stage(timer, "columns", stream);
        const LinePass columns{problem.width, problem.height, passes_.column_radius, passes_.column_taps, border};
        const PitchedLines<Accum, Storage> lines{d_intermediate, intermediate_pitch_bytes_, static_cast<char*>(dst.data),
                                                 dst.pitch_bytes, d_weights + passes_.column_offset, rule};
        launch_tile_pass<P>(columns, lines, stream);
      }
    });
  }

 private:
  PassWeights passes_;  // the prepared problem's weights and pass shapes
  ScratchBuffer intermediate_{fence()};
  std::size_t intermediate_pitch_bytes_ = 0;
  FormatSet carveout_set_;  // the formats whose kernels prefer shared memory already
};

}  // namespace

MethodEntry separable_shared_method() {
  MethodInfo info{"separable_shared", "Separable (shared memory)",
                  "Row pass then column pass through 32-line shared-memory tiles, 4–8 outputs per thread; "
                  "2(2r+1) multiply-adds per pixel and channel, r = 4σ: memory-bound at small σ, linear in σ beyond",
                  {},
                  Backend::Cuda, /*filters_along_x_only=*/true};
  info.formats = FormatSet::all();  // RGBA8, F32, RGBA16 and RGBA32F compiled, the others as F32 planes
  info.accuracy = accuracy_promise("float32 rounding", kFloatRoundingBound, info.formats);
  info.same_bytes_in_bands = true;
  info.kernels = KernelSupport::Separable;  // any odd masks, a pair, a rank-1 matrix (kernel_taps)
  info.all_roundings = true;
  return {info, [info] { return std::make_unique<SeparableShared>(info); }};
}

}  // namespace gausslab
