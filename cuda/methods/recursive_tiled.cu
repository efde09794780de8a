// recursive_tiled — recursive's Deriche 4th-order Gaussian, scheduled in 64×64 tiles: no transposes,
// each pass's output written once, the row pass's first step fused into the column pass.
//
// Algorithm (docs/methods/recursive_tiled.md, per-thread code in recursive_tiled_common.cuh, CPU model
// in tests/cpu/methods/recursive/): the filter, its coefficients and its exact border histories are
// recursive's (Deriche 1993 in Getreuer's constants, two complex one-pole recursions per direction);
// the schedule is the block-parallel recursive filtering of Nehab, Maximo, Lima and Hoppe (2011) in
// its simplest form: segment states, carries chained per line, one tile pass per direction. No code
// copied.
// Cost, independent of sigma: about 70 flops per pixel; global traffic per pixel the source read
// twice, the intermediate written and read once, the result written once, segment states about 4 B:
// 24 B, against recursive's ~80 B.
// Limits: float images: F32 as it is, half and float ones of 1-4 channels as F32 planes (an RGBA line's
// causal half would need 4 × 64 registers; bytes: use multires or recursive), five borders, any size
// from 1×1; recursive's sigma and truncate limits.
// Accuracy: recursive's filter with float states: equal to recursive's result within 6e-8 on [0, 1)
// images, so recursive's bound per sigma range applies (6.0e-4 measured at sigma 4, reflect).
// Measured (NVIDIA H100 80GB HBM3, 4096² F32, reflect): 0.232 ms at every sigma (recursive 0.548 ms);
// 0.300 ms before the carries read their states eight segments at a time.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/run_fence.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"
#include "recursive_coefficients.hpp"
#include "recursive_tiled_common.cuh"
#include "separable_common.cuh"

namespace gausslab {

namespace {

using namespace recursive_tiled;
using separable::SharedSpan;

constexpr int kLineThreads = 128;  // 1D kernels: segment states and carries

struct DeviceImage32 {
  const char* data;
  std::size_t pitch;
  __device__ float load(int x, int y) const {
    return reinterpret_cast<const float*>(data + static_cast<std::size_t>(y) * pitch)[x];
  }
};
struct DeviceImage32Out {
  char* data;
  std::size_t pitch;
  __device__ void store(int x, int y, float v) const {
    reinterpret_cast<float*>(data + static_cast<std::size_t>(y) * pitch)[x] = v;
  }
};

__global__ void ColumnStatesKernel(PassPlan plan, DeviceImage32 src, StateArrays states) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= plan.zero_state_threads()) return;
  const int column = static_cast<int>(t % plan.columns);
  const int segment = static_cast<int>(t / plan.columns);
  segment_zero_states(plan, column, segment, [&](int n) { return src.load(column, n); }, states);
}

// Lines are columns of `image` (kAlongColumns) or its rows.
template <bool kAlongColumns>
__global__ void CarryKernel(PassPlan plan, DeviceImage32 image, StateArrays states) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<long long>(plan.columns) * kPoles) return;
  const int line = static_cast<int>(t % plan.columns);
  const int pole = static_cast<int>(t / plan.columns);
  const int last = plan.length - 1;
  const float first = kAlongColumns ? image.load(line, 0) : image.load(0, line);
  const float last_sample = kAlongColumns ? image.load(line, last) : image.load(last, line);
  carry_line(plan, line, pole, first, last_sample, states);
}

// The column pass of one tile, and the row pass's zero-history states from it.
__global__ void __launch_bounds__(kTile) ColumnTileKernel(PassPlan columns, PassPlan rows, int width, int height,
                                                         DeviceImage32 src, DeviceImage32Out y, StateArrays column_states,
                                                         StateArrays row_states) {
  __shared__ float tile[kTile * kPitch];
  const SharedSpan<float> shared{tile};
  const TileGeometry g = tile_geometry(width, height, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);
  tile_load(g, thread, src, shared);
  __syncthreads();
  if (thread < g.w) filter_tile_line<true>(columns, g.x0 + thread, g.y0 / kTile, g.h, thread, shared, column_states);
  __syncthreads();
  tile_row_zero_states(rows, g, thread, shared, row_states);
  tile_store(g, thread, shared, y);
}

__global__ void __launch_bounds__(kTile) RowTileKernel(PassPlan rows, int width, int height, DeviceImage32 y,
                                                      DeviceImage32Out dst, StateArrays row_states) {
  __shared__ float tile[kTile * kPitch];
  const SharedSpan<float> shared{tile};
  const TileGeometry g = tile_geometry(width, height, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);
  tile_load(g, thread, y, shared);
  __syncthreads();
  if (thread < g.h) filter_tile_line<false>(rows, g.y0 + thread, g.x0 / kTile, g.w, thread, shared, row_states);
  __syncthreads();
  tile_store(g, thread, shared, dst);
}

unsigned blocks_for(long long threads, int block) { return static_cast<unsigned>((threads + block - 1) / block); }

// recursive's instance for the limits and the bound this method shares with it.
const Method& recursive_instance() {
  static const std::unique_ptr<Method> instance = find_method("recursive")->create();
  return *instance;
}

class RecursiveTiled final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    return recursive_instance().unsupported_reason(problem);
  }

  AccuracyBound accuracy_bound(const FilterProblem& problem) const override {
    return recursive::recursive_bound(problem.params);
  }

  void on_prepare(const FilterProblem& problem) override {
    const recursive::DericheGaussian g = recursive::deriche_gaussian(problem.params.sigma);
    columns_ = recursive::plan_pass(g, problem.width, problem.height, problem.params.border, kTile);
    rows_ = recursive::plan_pass(g, problem.height, problem.width, problem.params.border, kTile);
    y_pitch_ = (static_cast<std::size_t>(problem.width) * sizeof(float) + 127) / 128 * 128;
    y_.reserve(y_pitch_ * static_cast<std::size_t>(problem.height), "the column-filtered image");
    const std::size_t column_bytes = static_cast<std::size_t>(state_count(columns_)) * sizeof(Complex<float>);
    const std::size_t row_bytes = static_cast<std::size_t>(state_count(rows_)) * sizeof(Complex<float>);
    column_causal_.reserve(column_bytes, "the column segments' states");
    column_anticausal_.reserve(column_bytes, "the column segments' states");
    row_causal_.reserve(row_bytes, "the row segments' states");
    row_anticausal_.reserve(row_bytes, "the row segments' states");
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const int w = kernel_problem().width, h = kernel_problem().height;
    const DeviceImage32 source{static_cast<const char*>(src.data), src.pitch_bytes};
    const DeviceImage32 y_in{y_.as<const char>(), y_pitch_};
    const DeviceImage32Out y_out{y_.as<char>(), y_pitch_};
    const DeviceImage32Out out{static_cast<char*>(dst.data), dst.pitch_bytes};
    const StateArrays column_states{column_causal_.as<Complex<float>>(), column_anticausal_.as<Complex<float>>()};
    const StateArrays row_states{row_causal_.as<Complex<float>>(), row_anticausal_.as<Complex<float>>()};
    const unsigned tiles = grid_blocks(tile_count(w, h), "recursive_tiled: ColumnTileKernel and RowTileKernel");
    {
      ScopedStage stage(timer, "columns", stream);
      ColumnStatesKernel<<<blocks_for(columns_.zero_state_threads(), kLineThreads), kLineThreads, 0, stream>>>(
          columns_, source, column_states);
      GAUSSLAB_CUDA_CHECK_LAUNCH("ColumnStatesKernel", stream);
      CarryKernel<true><<<blocks_for(static_cast<long long>(w) * kPoles, kLineThreads), kLineThreads, 0, stream>>>(
          columns_, source, column_states);
      GAUSSLAB_CUDA_CHECK_LAUNCH("CarryKernel (columns)", stream);
      ColumnTileKernel<<<tiles, kTile, 0, stream>>>(columns_, rows_, w, h, source, y_out,
                                                                            column_states, row_states);
      GAUSSLAB_CUDA_CHECK_LAUNCH("ColumnTileKernel", stream);
    }
    {
      ScopedStage stage(timer, "rows", stream);
      CarryKernel<false><<<blocks_for(static_cast<long long>(h) * kPoles, kLineThreads), kLineThreads, 0, stream>>>(
          rows_, y_in, row_states);
      GAUSSLAB_CUDA_CHECK_LAUNCH("CarryKernel (rows)", stream);
      RowTileKernel<<<tiles, kTile, 0, stream>>>(rows_, w, h, y_in, out, row_states);
      GAUSSLAB_CUDA_CHECK_LAUNCH("RowTileKernel", stream);
    }
  }

 private:
  PassPlan columns_{}, rows_{};
  std::size_t y_pitch_ = 0;
  ScratchBuffer y_{fence()}, column_causal_{fence()}, column_anticausal_{fence()}, row_causal_{fence()},
      row_anticausal_{fence()};
};

}  // namespace

MethodEntry recursive_tiled_method() {
  MethodInfo info{"recursive_tiled", "Recursive, tiled (Deriche 4, F32)",
                  "recursive's Deriche 4th-order filter in 64×64 tiles: segment states, carries, one tile pass per "
                  "direction; no transposes, ~24 B of traffic per pixel; constant in σ; float images",
                  {},
                  Backend::Cuda};
  // float images (below), their channels as F32 planes
  info.formats = FormatSet::of_samples({SampleType::F16, SampleType::F32});
  info.accuracy = accuracy_promise("recursive's filter with float states", recursive::widest_recursive_bound(),
                                   info.formats, "by sigma at most; wider for a truncate below 4");
  return {info, [info] { return std::make_unique<RecursiveTiled>(info); }};
}

}  // namespace gausslab
