// lut_2d — lookup-table 2D convolution of 8-bit images: the fastest kernel of the BMP batch system
// gausslab grew from, on the GPU. A symmetric 2D Gaussian of radius r has (r+1)(r+2)/2 distinct
// weights; the products weight × value for each of them and each of the 256 values are computed
// once on the host (float64, rounded once) and held in shared memory, and every output sums
// (2r+1)² × 4 table entries instead of multiplying. Our own code; per-pixel work and table in
// lut_2d_common.cuh, run on the CPU by tests/cpu/methods/lut_2d/. Blocks of 32 × 8 threads in a
// grid-stride loop over the image, as many as stay resident, so each copies the table once.
// Cost: (2r+1)² × 4 table loads and additions per pixel (r = 4σ): 1156 at radius 8.
// Limits: 8-bit images only, RGBA8 as it is and 1-3 channels widened to it: the table holds the 256
// values of a byte (a 16-bit table would be 65536 × 45 weights, 11 MiB, beyond any shared memory);
// radius ≤ 8 (σ < 2.13 at truncate 4): the table (45 KiB at radius 8) must fit
// the 48 KiB of shared memory every GPU gives a block without opting in; all five borders; runs
// estimated over 2 s refused.
// Accuracy: entries rounded once, rows summed then the rows: (1 + 2(2r+1)) · 2^-24 of sum |w x|,
// 5e-4 levels at 255: promised: the FIR class, kFloatRoundingBound (accuracy_promise.hpp).
// Does a lookup still beat a multiply? No: on an H100 (4096² RGBA8) lut_2d takes 1.58 ms at 7×7
// against naive_2d's 1.19 and shared_2d's 0.33 (1.5× the faster multiply at 3×3, 6.6× at 17×17). An
// SM issues one shared-memory load instruction per clock against four FP32 FMA instructions, and
// the table index follows the pixel value, so a warp's lookups conflict on banks chosen by the data
// (value mod 32): a lookup costs ≥ 4× an FMA's issue slot, more with the conflicts.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/tile_grid.cuh"
#include "lut_2d_common.cuh"

namespace gausslab {

namespace {

using namespace lut2d;

// Assumed table lookups per second for the cost refusal: a fifth of an H100's shared-memory load
// rate (132 SMs × 32 lanes × 1.7 GHz), for the bank conflicts and smaller GPUs.
constexpr double kLookupsPerSecond = 1.5e12;
constexpr double kMaxSecondsPerRun = 2.0;

struct TapRows {
  int base[P::kMaxTaps];
  __host__ __device__ __forceinline__ int operator[](int t) const { return base[t]; }
};

struct SharedTable {
  const float* data;
  __device__ __forceinline__ float operator[](int i) const { return data[i]; }
};

// ---- kernel ------------------------------------------------------------------------------------

__global__ void __launch_bounds__(P::kThreads)
    lut2dKernel(const __grid_constant__ LutArgs args, const __grid_constant__ TapRows rows,
                const float* __restrict__ d_table, int table_floats, int tiles_x, long long tiles) {
  extern __shared__ float s_table[];
  const int thread = static_cast<int>(threadIdx.y * P::kThreadsX + threadIdx.x);
  for (int i = thread; i < table_floats; i += P::kThreads) s_table[i] = __ldg(d_table + i);
  __syncthreads();  // the table is complete; no barrier follows
  const SharedTable table{s_table};
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int x = static_cast<int>(tile % tiles_x) * P::kThreadsX + static_cast<int>(threadIdx.x);
    const int y = static_cast<int>(tile / tiles_x) * P::kThreadsY + static_cast<int>(threadIdx.y);
    if (x < args.dst.width && y < args.dst.height)
      args.dst.row<uchar4>(y)[x] = to_rgba8(lut_output(args, table, rows, x, y));
  }
}

long long tile_count(int width, int height) { return tile_block_count(width, height, P::kThreadsX, P::kThreadsY); }

// ---- the method ------------------------------------------------------------------------------

class Lut2d final : public BytesAsRgba8GpuMethod {
 public:
  using BytesAsRgba8GpuMethod::BytesAsRgba8GpuMethod;

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return kFloatRoundingBound; }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const int radius = problem.params.radius();
    if (radius > P::kMaxRadius) {
      char text[400];
      std::snprintf(text, sizeof text,
                    "lut_2d keeps a table of (r+1)(r+2)/2 distinct weights × 256 values in shared memory: radius %d "
                    "needs %d × 256 × 4 B = %.1f KiB, more than the %zu KiB a block gets on every GPU (radius %d "
                    "at most: sigma below %.3g at truncate %g); lower sigma or use another method",
                    radius, distinct_weights(radius), table_bytes(radius) / 1024.0, P::kTableBytesLimit / 1024,
                    P::kMaxRadius, (P::kMaxRadius + 0.5) / problem.params.truncate, problem.params.truncate);
      return text;
    }
    const double taps = 2.0 * radius + 1.0;
    const double lookups = static_cast<double>(tile_count(problem.width, problem.height)) * P::kThreads * taps * taps * 4;
    if (lookups / kLookupsPerSecond > kMaxSecondsPerRun) {
      char text[300];
      std::snprintf(text, sizeof text,
                    "%.2g table lookups would take about %.3g s at the %.1e per second assumed, over the %g s "
                    "lut_2d accepts; use a smaller image, a lower sigma, or a separable method",
                    lookups, lookups / kLookupsPerSecond, kLookupsPerSecond, kMaxSecondsPerRun);
      return text;
    }
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    const int radius = problem.params.radius();
    weights().reserve(static_cast<std::size_t>(distinct_weights(P::kMaxRadius)) * P::kValues);  // never regrown
    if (radius != table_radius_ || problem.params.sigma != table_sigma_) {
      table_radius_ = -1;  // until the new table is set
      weights().set(make_table(problem.params.sigma, radius), "the lookup table of radius " + std::to_string(radius));
      const std::vector<int> tap_rows = make_tap_rows(radius);
      std::copy(tap_rows.begin(), tap_rows.end(), rows_.base);
      table_radius_ = radius;
      table_sigma_ = problem.params.sigma;
    }
    // Blocks that stay resident: each copies the table once.
    const std::size_t shared_bytes = table_bytes(radius);
    int device = 0, sms = 0, per_sm = 0;
    GAUSSLAB_CUDA_CHECK(cudaGetDevice(&device));
    GAUSSLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GAUSSLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lut2dKernel, P::kThreads, shared_bytes));
    resident_blocks_ = std::max(1, sms * std::max(1, per_sm));
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FilterParams& params = kernel_problem().params;
    const LutArgs args{src, dst, params.radius(), params.border};
    const int tiles_x = (dst.width + P::kThreadsX - 1) / P::kThreadsX;
    const long long tiles = tile_count(dst.width, dst.height);
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(tiles, resident_blocks_));
    const int table_floats = distinct_weights(args.radius) * P::kValues;
    ScopedStage stage(timer, "convolve", stream);
    lut2dKernel<<<blocks, dim3(P::kThreadsX, P::kThreadsY), table_bytes(args.radius), stream>>>(
        args, rows_, weights().device(), table_floats, tiles_x, tiles);
    GAUSSLAB_CUDA_CHECK_LAUNCH("lut2dKernel", stream);
  }

 private:
  TapRows rows_{};
  int table_radius_ = -1;
  double table_sigma_ = 0;
  int resident_blocks_ = 1;
};

}  // namespace

MethodEntry lut_2d_method() {
  MethodInfo info{"lut_2d", "Lookup-table 2D (8-bit)",
                  "RGBA8: products of the (r+1)(r+2)/2 distinct 2D weights × 256 values in a shared-memory table; "
                  "(2r+1)² table lookups per pixel and channel instead of multiplies, r = 4σ; radius ≤ 8",
                  {},
                  Backend::Cuda};
  // a table of the 256 byte values (below); 1-3 channels widened to RGBA8
  info.formats = FormatSet::of_samples({SampleType::U8});
  info.accuracy = accuracy_promise("float32 table entries and sums", kFloatRoundingBound, info.formats);
  info.same_bytes_in_bands = true;
  return {info, [info] { return std::make_unique<Lut2d>(info); }};
}

}  // namespace gausslab
