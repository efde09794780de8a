// separable_shared — row pass then column pass, each through shared-memory tiles: the default method
// of the viewer.
//
// Algorithm and source: the separable convolution of NVIDIA's convolutionSeparable sample (V.
// Podlozhnyuk, "Image Convolution with CUDA", 2007: coalesced tile loads into shared memory, several
// outputs per thread, padding against bank conflicts), without its limits: any image size, a radius
// chosen at run time up to kMaxRadius, and the five border modes of core/border.hpp.
// The per-thread code lives in separable_common.cuh (maths, tile geometry, loads, stores) so that the
// CPU model in tests/cpu/test_separable_indexing.cpp runs it unchanged. In short:
//   - a block owns 32 lines (one per lane) × a segment of kSegment positions along them; warp w
//     computes N consecutive outputs of all 32 lines with a register window (N sample loads per N
//     taps instead of N × N);
//   - taps come in chunks of kChunkTaps: the tile holds kSegment + chunk - 1 samples per line, so a
//     radius of 2000 is a loop of chunks, not a bigger tile and not a recompilation;
//   - every load goes through border_index when its chunk touches the border (exact for every mode,
//     also when the radius exceeds the side: a 1×1 image at sigma 200 reads its one pixel 4001 times);
//   - outputs are written transposed: "rows" filters the source's rows into a float intermediate
//     that is W rows of H samples (the image's columns), "columns" runs the same kernel over those
//     rows and writes the destination upright. Both passes therefore read along memory and write 32
//     consecutive pixels per warp instruction: every global access is coalesced.
// The intermediate is float4 (RGBA) or float (F32), allocated in on_prepare; the weights are the
// instance's own (padded_weights), kept in a small device buffer per instance and uploaded in run()
// on the run's stream when they changed, so two instances with different sigmas can alternate on one
// stream (the viewer's A/B view) and prepare() never disturbs a run still in flight.
//
// Launch policy (SharedPolicyFor in separable_common.cuh), and why:
//   RGBA8: 16 warps × N = 4 outputs = 64 positions × 32 lines per block, chunks of 32 taps.
//          The float4 tile of the column pass is 32 × 95 × 16 B = 47.5 KiB (the 48 KiB static
//          limit); N = 4 keeps the window (7 float4) and the accumulators (4 float4) within 64
//          registers, so 2 blocks of 512 threads fit an SM.
//   F32:   8 warps × N = 8 outputs = 64 positions × 32 lines, chunks of 64 taps, 15.9 KiB tile,
//          256 threads, 4 blocks per SM.
//   Tile pitch kSegment + chunk - 1 rounded to odd: the warp reads one sample of 32 lines per
//   instruction, at a stride of the pitch, which an odd pitch spreads over all 32 banks.
//
// Cost as a function of sigma (r = floor(truncate × sigma + 0.5), taps T = 2r + 1 rounded up to a
// multiple of N): per pixel and pass, T multiply-adds per channel (the padding adds at most N - 1
// zero taps), T / N + 1 shared-memory sample loads per output, and (64 + min(T, chunk) - 1) / 64
// global loads per pixel per chunk (the apron: 1.3× at sigma 2, mostly L2 hits). Memory traffic per
// RGBA8 pixel: 4 B read + 16 B written (rows), 16 B read + 4 B written (columns) = 40 B, so the
// bandwidth floor of a 4096² RGBA8 image is 671 MB / ~3 TB/s ≈ 0.22 ms on an H100; F32: 16 B per
// pixel. Estimate, not a measurement: one RGBA8 pass over 4096² needs T × 2.3 µs of an H100 SXM's
// FP32 multiply-add rate (132 SMs × 128 lanes) against ~0.11 ms of memory traffic, so it stays
// memory-bound up to T ≈ 50 at best (sigma ≈ 6 at truncate 4; less once the loads and the window's
// moves are counted) and grows linearly with sigma beyond.
//
// Limits: none beyond the project's (any size from 1×1 to kMaxPixels, radius 0–2000, all five
// borders, RGBA8 and F32). Scratch: one float intermediate, 16 B per RGBA8 pixel or 4 B per F32
// pixel (16 GiB for a 2^30-pixel RGBA8 image; a failed allocation names the size). Source and
// destination rows must start on 4-byte boundaries (pixels are read as uchar4/float); anything else
// is refused with a message. A NaN or infinity in an F32 source spreads up to N - 1 samples further
// than the kernel's radius (a zero pad weight times infinity is NaN); finite inputs are unaffected.
//
// Accuracy: float32 rounding only. The CPU model runs this file's per-thread code with the same
// fmaf in the same order, so it reproduces the GPU's results bit for bit; measured with it against
// the unrounded float64 reference (test_separable_indexing.cpp, SeparableAccuracy.DISABLED_Table):
// F32 = max over a 160×128 astronaut crop (luminance), a 160×128 Hubble crop and 61×47 noise,
// relative to max |reference|; RGBA8 = max over the astronaut crop and RGBA noise, in 8-bit levels
// including the final rounding (0.5 of it).
//   sigma | F32 max rel. error: reflect mirror nearest constant wrap | RGBA8 max levels (all modes)
//     0.3 | 1.6e-7 1.6e-7 1.6e-7 1.6e-7 1.6e-7                      | 0.4999
//     1   | 2.0e-7 2.0e-7 2.0e-7 2.0e-7 2.0e-7                      | 0.5000
//     2   | 2.5e-7 2.5e-7 2.2e-7 2.5e-7 2.5e-7                      | 0.5000
//     5   | 4.5e-7 4.4e-7 3.8e-7 4.1e-7 4.1e-7                      | 0.5000
//    20   | 8.2e-7 9.3e-7 7.5e-7 7.3e-7 8.6e-7                      | 0.5000
//    60   | 1.7e-6 1.7e-6 1.6e-6 6.2e-7 1.7e-6                      | 0.5001
//   200   | 3.2e-6 3.0e-6 2.6e-6 7.1e-7 2.5e-6                      | 0.5002
//   Bound (accuracy_bound): max relative error 1e-5 (F32), 0.51 levels (RGBA8): 3× margin at
//   sigma 200 (1601 taps per pass), 50× at sigma 1.
//
// Resources (ptxas, sm_90): RGBA8 rows 60 registers, 12.0 KiB shared; RGBA8 columns 64 registers,
// 47.6 KiB; F32 64 registers, 16.1 KiB; no spills (sm_86/sm_89: a 4-byte spill in the RGBA8 column
// kernel under its 64-register cap).
//
// Measured on the GPU (NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0; docs/results): accuracy
// sweep F32 max 4.0e-6 of the peak (σ 200, radius 800), RGBA8 max 0.50 levels, 765 of 765 cases.
// Kernel time (gausslab-bench; % of the 2973 GB/s copy bandwidth counting one read + one write per
// pixel: the two passes move twice that, so 50 % is the ceiling): 4096² F32 7×7 0.124 ms (36 %), 41×41
// 0.177 ms (26 %); 4096² RGBA8 7×7 0.367 ms (12 %), σ 16 1.61 ms, σ 64 5.73 ms. Viewer, 3840×2160
// RGBA8 σ 2: rows 0.135 + columns 0.096 ms.
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
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocksPerSm)
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
  std::string method_limits(const FilterProblem&) const override { return {}; }

  void on_prepare(const FilterProblem& problem) override {
    const FilterParams& params = problem.params;
    weights().reserve(static_cast<std::size_t>(padded_tap_count(kMaxRadius, 8)));  // the longest kernel, once
    weights().set(padded_weights(params.sigma, params.radius(), window_outputs(problem.format)));
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
                  Backend::Cuda};
  return {info, [info] { return std::make_unique<SeparableShared>(info); }};
}

}  // namespace gausslab
