// recursive — Deriche's 4th-order recursive (IIR) Gaussian, one thread per column segment, with
// transposes.
//
// Algorithm: R. Deriche, "Recursively implementing the Gaussian and its derivatives" (INRIA RR-1893,
// 1993), 4th order, in the constants of P. Getreuer, "A Survey of Gaussian Convolution Algorithms"
// (IPOL 2013), run as two complex first-order sections down and up each column, DC gain
// renormalised to 1, exact border histories for all five modes. Columns are cut into segments whose
// end states a carry kernel chains; stages "columns", "transpose", "rows", "transpose back". The
// per-thread code is recursive_model.hpp; the CPU model runs it (tests/cpu/methods/recursive/).
// Cost: constant in sigma: about 170 double operations per RGBA pixel and pass, four image passes.
// Limits: sigma 0.1–200, any size, all five borders, RGBA8 and F32 as they are, the other 8-bit, half
// and float formats as F32 planes (16-bit ones would be ~100 levels: not taken); refused when the reference's
// truncation drops more than 1 % of the Gaussian's mass (truncate below about 2.6).
// Accuracy: it approximates the untruncated Gaussian; bound by sigma range, wider for a truncate
// below 4: recursive_bound (recursive_coefficients.cpp, with the ranges' figures and their sources).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 0.545 ms at 7×7 and at 41×41.
// Why Deriche, why complex sections and a double state, the accuracy table: docs/methods/recursive.md.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>

#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "recursive_coefficients.hpp"
#include "recursive_model.hpp"

namespace gausslab {

namespace {

using namespace recursive;

// The precision of the recursion's state (see the header: double keeps flat fields exactly flat).
using RecursionState = double;

// Above this share of dropped mass the truncated reference is a different filter (see the header).
constexpr double kMaxTruncationLoss = 1e-2;

// ---- launch shapes ---------------------------------------------------------------------------
struct LaunchPolicy {
  static constexpr int kPassThreads = 128;  // zero states, carry, segment output: 1D blocks
};

unsigned int blocks_for(long long threads, int block) {
  return static_cast<unsigned int>((threads + block - 1) / block);
}

// ---- kernels: thin wrappers around recursive_model.hpp ---------------------------------------

template <class In>
__global__ void zeroStatesKernel(PassPlan plan, Columns<const In> src, Complex<double>* d_causal,
                                 Complex<double>* d_anticausal) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= plan.zero_state_threads()) return;
  const SegmentThread thread = segment_thread(plan, t);
  zero_states<RecursionState>(plan, src, thread.column, thread.segment, d_causal, d_anticausal);
}

template <class In>
__global__ void carryKernel(PassPlan plan, Columns<const In> src, Complex<double>* d_causal,
                            Complex<double>* d_anticausal) {
  constexpr int C = kChannelsOf<In>;
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= carry_threads(plan, C)) return;
  const CarryThread thread = carry_thread(plan, C, t);
  carry(plan, src, thread.column, thread.pole, thread.channel, d_causal, d_anticausal);
}

template <class In, class Out>
__global__ void segmentOutputKernel(PassPlan plan, Columns<const In> src, Columns<Out> dst,
                                    const Complex<double>* d_causal, const Complex<double>* d_anticausal) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= plan.zero_state_threads()) return;
  const SegmentThread thread = segment_thread(plan, t);
  segment_output<RecursionState>(plan, src, dst, thread.column, thread.segment, d_causal, d_anticausal);
}

// One block of 32 × 8 threads per 32×32 tile; no thread leaves before the barrier.
template <class In, class Out>
__global__ void transposeKernel(Columns<const In> src, Columns<Out> dst, TransposeGrid grid) {
  __shared__ Tile<In> tile;
  const long long t = blockIdx.x;
  const int tile_x = static_cast<int>(t % grid.tiles_x), tile_y = static_cast<int>(t / grid.tiles_x);
  transpose_load(src, tile_x, tile_y, static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y), tile);
  __syncthreads();
  transpose_store(tile, dst, tile_x, tile_y, static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y));
}

template <class T>
Columns<const T> as_const(const Columns<T>& view) {
  return {view.data, view.pitch_bytes, view.count, view.length};
}

// ---- the method ------------------------------------------------------------------------------

class RecursiveGaussian final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override { return recursive_bound(problem.params); }

 protected:
  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    dispatch_format(src.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      using Storage = typename PixelTraits<F>::Storage;
      using Scratch = Intermediate<kChannelsOf<Storage>>;
      const int width = src.width, height = src.height;
      const Columns<const Storage> source{static_cast<const Storage*>(src.data), src.pitch_bytes, width, height};
      const Columns<Storage> destination{static_cast<Storage*>(dst.data), dst.pitch_bytes, width, height};
      const Columns<Scratch> a_image{d_scratch_a_.as<Scratch>(), plan_.pitch_elements_columns * sizeof(Scratch), width,
                                     height};
      const Columns<Scratch> b_transposed{d_scratch_b_.as<Scratch>(), plan_.pitch_elements_rows * sizeof(Scratch),
                                          height, width};
      const Columns<Scratch> a_transposed{d_scratch_a_.as<Scratch>(), plan_.pitch_elements_rows * sizeof(Scratch),
                                          height, width};
      {
        ScopedStage stage(timer, "columns", stream);
        launch_pass(plan_.columns, source, a_image, stream);
      }
      {
        ScopedStage stage(timer, "transpose", stream);
        launch_transpose(as_const(a_image), b_transposed, stream);
      }
      {
        ScopedStage stage(timer, "rows", stream);
        launch_pass(plan_.rows, as_const(b_transposed), a_transposed, stream);
      }
      {
        ScopedStage stage(timer, "transpose back", stream);
        launch_transpose(as_const(a_transposed), destination, stream);
      }
    });
  }

  std::string method_limits(const FilterProblem& problem) const override {
    const FilterParams& params = problem.params;
    const double loss = truncation_loss(params.sigma, params.radius());
    if (loss <= kMaxTruncationLoss) return {};
    char text[400];
    std::snprintf(text, sizeof text,
                  "the recursive filter approximates the whole Gaussian, but radius %d (sigma %g) drops %.1f %% "
                  "of its mass from the reference, so the two cannot agree; use truncate 3 or more (radius %d "
                  "or more), or a FIR method",
                  params.radius(), params.sigma, 100.0 * loss, gaussian_radius(params.sigma, 3.0));
    return text;
  }

  void on_prepare(const FilterProblem& problem) override {
    const ImagePlan plan = plan_image(problem.width, problem.height, problem.params.sigma, problem.params.border);
    const int channels = channel_count(problem.format);
    const std::size_t scratch_bytes = plan.scratch_elements * (channels == 4 ? sizeof(float4) : sizeof(float));
    const std::size_t state_bytes =
        std::max(state_count(plan.columns, channels), state_count(plan.rows, channels)) * sizeof(Complex<double>);
    char what[160];
    std::snprintf(what, sizeof what,
                  "the scratch of a %d×%d image (%.0f MiB in all: two float images and the segment states)",
                  problem.width, problem.height, (2.0 * scratch_bytes + 2.0 * state_bytes) / (1 << 20));
    d_scratch_a_.reserve(scratch_bytes, what);
    d_scratch_b_.reserve(scratch_bytes, what);
    d_causal_.reserve(state_bytes, what);
    d_anticausal_.reserve(state_bytes, what);
    plan_ = plan;
  }

 private:
  template <class In, class Out>
  void launch_pass(const PassPlan& plan, const Columns<const In>& src, const Columns<Out>& dst,
                   cudaStream_t stream) const {
    constexpr int C = kChannelsOf<In>;
    constexpr int block = LaunchPolicy::kPassThreads;
    Complex<double>* d_causal = d_causal_.as<Complex<double>>();
    Complex<double>* d_anticausal = d_anticausal_.as<Complex<double>>();
    zeroStatesKernel<In>
        <<<blocks_for(plan.zero_state_threads(), block), block, 0, stream>>>(plan, src, d_causal, d_anticausal);
    GAUSSLAB_CUDA_CHECK_LAUNCH("zeroStatesKernel", stream);
    carryKernel<In><<<blocks_for(carry_threads(plan, C), block), block, 0, stream>>>(plan, src, d_causal, d_anticausal);
    GAUSSLAB_CUDA_CHECK_LAUNCH("carryKernel", stream);
    segmentOutputKernel<In, Out>
        <<<blocks_for(plan.zero_state_threads(), block), block, 0, stream>>>(plan, src, dst, d_causal, d_anticausal);
    GAUSSLAB_CUDA_CHECK_LAUNCH("segmentOutputKernel", stream);
  }

  template <class In, class Out>
  static void launch_transpose(const Columns<const In>& src, const Columns<Out>& dst, cudaStream_t stream) {
    const TransposeGrid grid = transpose_grid(src.count, src.length);
    const dim3 threads(kTileSide, kTileRowsPerPass);
    transposeKernel<In, Out><<<static_cast<unsigned int>(grid.tiles()), threads, 0, stream>>>(src, dst, grid);
    GAUSSLAB_CUDA_CHECK_LAUNCH("transposeKernel", stream);
  }

  ImagePlan plan_;
  ScratchBuffer d_scratch_a_{fence()}, d_scratch_b_{fence()};
  ScratchBuffer d_causal_{fence()}, d_anticausal_{fence()};
};

}  // namespace

MethodEntry recursive_method() {
  MethodInfo info{"recursive", "Recursive IIR (Deriche 4th order)",
                  "Deriche 4th-order causal+anticausal recursion down columns, transpose, again, transpose "
                  "back; cost independent of sigma",
                  {},
                  Backend::Cuda};
  // RGBA8 and F32 compiled, the others as F32 planes
  info.formats = FormatSet::of_samples({SampleType::U8, SampleType::F16, SampleType::F32});
  info.accuracy = accuracy_promise("an approximation of the whole Gaussian", recursive::widest_recursive_bound(),
                                   info.formats, "by sigma at most; wider for a truncate below 4");
  return {info, [info] { return std::make_unique<RecursiveGaussian>(info); }};
}

}  // namespace gausslab
