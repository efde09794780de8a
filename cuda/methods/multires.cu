// multires — large-sigma Gaussian in about one read and one write of the image: prefilter and
// decimate by d, blur the small image, expand it back with a cubic B-spline.
//
// Algorithm (docs/methods/multires.md; maths in multires_plan.hpp, per-thread code in
// multires_common.cuh, run unchanged by tests/cpu/methods/multires/): three separable, normalised,
// non-negative stages whose variances add up to sigma^2: a Gaussian prefilter of 0.8 d evaluated at
// every d-th pixel (reduce, d = max(2, floor(sigma / 2)) for RGBA8, floor(sigma / 2.5) for F32), a
// Gaussian blur of the coarse image, and the cubic B-spline through the coarse samples (variance
// d^2 / 3). Pyramid ideas (Burt & Adelson, Unser's B-splines) with the parameters and the bound
// worked out here; no code copied.
// Cost, constant in sigma: about 6.5 + 6.5/d + 2(2r2 + 1)/d^2 + 5 + 5/d multiply-adds per pixel and
// channel; the image read once and written once, plus coarse images of 8/d^2 B per pixel (RGBA8).
// Kernels: reduce (one 2D-tile kernel up to d 3 for RGBA8 on the tensor cores' devices and for
// RGBA32F, d 4 for RGBA8 elsewhere, d 6 for F32; above, a row reduce, as mma products for RGBA8 from sm_80
// (multires_row_mma.cuh), then a column reduce in 4-warp blocks up to d 6, 8-warp blocks above), blur
// (the reduce kernel with d = 1), expand (tiles of 128 columns × up to 4 chunks of 32 rows; each
// thread four pixels of a row per 16-byte store, only the spline's taps multiplied where d is 2, 4 or
// a multiple of 8). Fills by cp.async; CUDA-core decimating passes hold a phase's taps in registers;
// from sm_90 each kernel after the first launches as a programmatic dependent of the one before.
// Limits: sigma >= 4, truncate >= 4 (a shorter reference differs from the Gaussian by more than the
// bound), five borders (the coarse grid extends past the image), RGBA8 and F32 as they are, RGBA32F
// as float4 through the same kernels (each channel F32's arithmetic, bit for bit; up to sigma ~117,
// where its row reduce's 32 rows of 16-byte pixels outgrow 227 KiB of shared memory), 8-bit images of
// 1-3 channels widened to RGBA8 (its proven 8-bit bound), the other half and float ones as F32 planes
// (its relative bound; 16-bit images would be 59 levels: not taken), any size up to
// 2,097,120 rows and sides below 2^32 / d (the expand's grid and its index arithmetic).
// Accuracy, proven for every image from the exact kernels (MultiresBound, sigma 4-200): the bound
// kMultiresBound (multires_plan.hpp, with the proof's terms).
// Measured (NVIDIA H200, 4096² RGBA8, reflect, 2026-11-28): 0.137 ms at sigma 8, 0.095-0.101 ms
// from sigma 16 to 64 (recursive 1.2 ms; 23-34 % of that GPU's copy bandwidth); on the H100 0.122 ms
// at sigma 32 before the expand's chunks. RGBA32F (2026-12-02): 0.347 ms at sigma 4, 0.253 at 16
// (37 and 50 % of copy). Per-kernel figures and limits: docs/methods/multires.md.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/dependent_launch.cuh"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/run_fence.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "async_copy.cuh"
#include "multires_common.cuh"
#include "multires_plan.hpp"
#include "multires_row_mma.cuh"

namespace gausslab {

namespace {

using namespace multires;

// ---- kernels --------------------------------------------------------------------------------------

// A pixel as one machine word, so that the zero of a 'constant' border is one select (on uchar4 the
// compiler chose bytes: eleven instructions per copied pixel in the row reduce's fill).
template <class T>
struct PixelWord;
template <>
struct PixelWord<uchar4> {
  using type = unsigned;
};
template <>
struct PixelWord<ushort4> {
  using type = uint2;
};
template <>
struct PixelWord<float> {
  using type = float;
};
template <>
struct PixelWord<float4> {
  using type = float4;
};

template <class In>
struct DeviceRaw {
  const char* src;
  std::size_t pitch;
  In* raw;
  const float* weights;
  float* shared_weights;
  // An asynchronous copy (async_copy.cuh): the kernel waits for them all before its barrier.
  __device__ void copy(int slot, int row, int col) const {
    using Word = typename PixelWord<In>::type;
    static_assert(sizeof(Word) == sizeof(In), "a pixel is one word");
    if (row < 0 || col < 0)
      reinterpret_cast<Word*>(raw)[slot] = Word{};
    else
      copy_inside(slot, row, col);
  }
  __device__ void copy_inside(int slot, int row, int col) const {
    copy_async<sizeof(In)>(raw + slot, reinterpret_cast<const In*>(src + static_cast<std::size_t>(row) * pitch) + col);
  }
  __device__ void copy_weight(int t) const { shared_weights[t] = weights[t]; }
};

template <class Out>
struct DeviceStore {
  char* dst;
  std::size_t pitch;
  template <class Accum>
  __device__ void store(int x, int y, Accum value) const {
    reinterpret_cast<Out*>(dst + static_cast<std::size_t>(y) * pitch)[x] = Store<Out>::from(value);
  }
};

// Reduce (d ≥ 2, In = the image's pixel) and blur (d = 1, In = Coarse): one tile of outputs.
template <class In, class Out, class Accum>
__global__ void __launch_bounds__(ReduceKernelPolicy::kThreads, 4)
    MultiresReduceKernel(ReduceStage s, const char* src, std::size_t src_pitch, char* out, std::size_t out_pitch,
                         const float* weights) {
  using P = ReduceKernelPolicy;
  wait_for_previous_grid();  // the blur reads C (a no-op for the reduce: an ordinary launch)
  allow_next_grid();
  extern __shared__ float4 reduce_shared[];
  const ReduceLayout l = reduce_layout<In, Accum>(s);
  char* const base = reinterpret_cast<char*>(reduce_shared);
  float* const w = reinterpret_cast<float*>(base);
  const SharedSpan<Accum> h{reinterpret_cast<Accum*>(base + l.h_offset_bytes)};
  In* const raw = reinterpret_cast<In*>(base + l.raw_offset_bytes);
  const TileOrigin tile = reduce_tile(s, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);
  reduce_fill<P>(s, l, tile, thread, DeviceRaw<In>{src, src_pitch, raw, weights, w});
  wait_async_copies();
  __syncthreads();
  reduce_row_pass<P>(s, l, thread, SharedSpan<In>{raw}, SharedSpan<float>{w}, h);
  __syncthreads();
  reduce_column_pass<P>(s, l, tile, thread, h, SharedSpan<float>{w}, DeviceStore<Out>{out, out_pitch});
}

// Row reduce of RGBA8 on the tensor cores (multires_row_mma.cuh): block (x, y) = 16 image rows ×
// warps × tiles_per_warp tiles of 4 outputs; Subnormal: how the samples become fp16.
template <bool Subnormal>
__global__ void __launch_bounds__(32 * row_mma::kMaxWarps)
    MultiresRowReduceMmaKernel(row_mma::Stage s, const char* src, std::size_t src_pitch, char* out,
                               std::size_t out_pitch, const unsigned* table) {
  using namespace row_mma;
  allow_next_grid();  // the column reduce may launch; it waits for this grid before reading R
  extern __shared__ float4 row_mma_shared[];
  unsigned* const weights = reinterpret_cast<unsigned*>(row_mma_shared);
  unsigned* const rows = weights + s.table_words;
  const int bx = static_cast<int>(blockIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kRows;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;

  // Fill: the weight table, then the block's rows 4 pixels per copy. A thread takes a column of 4
  // pixels down all 16 rows, so that a column outside the image is mapped through the border once
  // (a 'constant' border reads zero); rows below the image are zero (their results are not stored).
  for (int i = 4 * static_cast<int>(threadIdx.x); i < s.table_words; i += 4 * static_cast<int>(blockDim.x))
    copy_async<16>(weights + i, table + i);
  const int fill_x = fill_origin(s, bx);
  const int rows_inside = min(kRows, s.src_h - y0);
  const char* const first_line = src + static_cast<std::size_t>(y0) * src_pitch;
  for (int chunk = static_cast<int>(threadIdx.x); chunk < s.span / 4; chunk += static_cast<int>(blockDim.x)) {
    unsigned* dst = rows + 4 * chunk;
    const int x = fill_x + 4 * chunk;
    const char* line = first_line;
    if (x >= 0 && x + 4 <= s.src_w) {
      for (int row = 0; row < rows_inside; ++row, dst += s.pitch, line += src_pitch) {
        const unsigned* const from = reinterpret_cast<const unsigned*>(line) + x;
        if (s.aligned16) {
          copy_async<16>(dst, from);
        } else {
          for (int k = 0; k < 4; ++k) copy_async<4>(dst + k, from + k);
        }
      }
    } else {
      int xi[4];
      for (int k = 0; k < 4; ++k) xi[k] = border_index(x + k, s.src_w, s.border);
      for (int row = 0; row < rows_inside; ++row, dst += s.pitch, line += src_pitch)
        for (int k = 0; k < 4; ++k) dst[k] = xi[k] < 0 ? 0u : reinterpret_cast<const unsigned*>(line)[xi[k]];
    }
    for (int row = rows_inside; row < kRows; ++row)
      *reinterpret_cast<uint4*>(rows + row * s.pitch + 4 * chunk) = make_uint4(0, 0, 0, 0);
  }
  wait_async_copies();
  __syncthreads();

  const WarpWalk walk = warp_walk(s, bx, warp);
  if (walk.c_first >= s.out_w) return;  // the warp's tiles lie beyond C (no barrier follows)
  // The lane's words as pointers that step by 8 pixels (and 8 table words): the loads take immediate
  // offsets in the unrolled loops instead of recomputing row × pitch + column.
  const unsigned* a[4];
  for (int reg = 0; reg < 4; ++reg) {
    const WordAt at = a_word(lane, reg);
    a[reg] = rows + at.row * s.pitch + walk.start0.first_pixel + at.pixel;
  }
  const unsigned* const b0 = weights + lane_tap(s, lane, walk.start0.psi);
  const unsigned* const b1 = weights + lane_tap(s, lane, walk.start1.psi);
  FragC even0{}, odd0{}, even1{}, odd1{};
  // One tile's k-step q (the B words at b[8 q] and b[8 q + 4]): mma with the high and low halves.
  const auto tile_step = [&](const unsigned* b, int q, const FragA& even, const FragA& odd, FragC& even_sum,
                             FragC& odd_sum) {
    FragB hi, lo;
    b_fragments(lane, b[kStepPixels * q], b[kStepPixels * q + kStepPixels / 2], hi, lo);
    mma_fir::mma_16816(even_sum, even, hi);
    mma_fir::mma_16816(odd_sum, odd, hi);
    mma_fir::mma_16816(even_sum, even, lo);
    mma_fir::mma_16816(odd_sum, odd, lo);
  };
  // Step q of the walk: A once, then each tile's own step.
  const auto step = [&](int q, auto first, auto second) {
    const unsigned words[4] = {a[0][kStepPixels * q], a[1][kStepPixels * q], a[2][kStepPixels * q],
                               a[3][kStepPixels * q]};
    FragA even, odd;
    a_fragments<Subnormal>(words, even, odd);
    if constexpr (decltype(first)::value) tile_step(b0, q, even, odd, even0, odd0);
    if constexpr (decltype(second)::value) tile_step(b1, q - walk.shift, even, odd, even1, odd1);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (!walk.second) {
    for (int q = 0; q < s.steps; ++q) step(q, Yes{}, No{});
  } else {
    for (int q = 0; q < walk.shift; ++q) step(q, Yes{}, No{});
    for (int q = walk.shift; q < s.steps; ++q) step(q, Yes{}, Yes{});
    for (int q = s.steps; q < s.steps + walk.shift; ++q) step(q, No{}, Yes{});
  }
  const float scale = result_scale<Subnormal>(s);
  const auto store = [&](int tile, const FragC& even, const FragC& odd) {
    for (int half = 0; half < 2; ++half) {
      const OutputAt at = d_output(lane, 2 * half);
      const int c = walk.c_first + tile * kTileOutputs + at.output, y = y0 + at.row;
      if (c >= s.out_w || y >= s.src_h) continue;
      const int i = 2 * half;
      const float4 v = scale * make_float4(even.v[i], odd.v[i], even.v[i + 1], odd.v[i + 1]);
      reinterpret_cast<ushort4*>(out + static_cast<std::size_t>(y) * out_pitch)[c] = Store<ushort4>::from(v);
    }
  };
  store(0, even0, odd0);
  if (walk.second) store(1, even1, odd1);
}

template <class P, class In, class Out, class Accum>
__global__ void __launch_bounds__(P::kThreads)
    MultiresRowReduceKernel(RowReduceStage s, const char* src, std::size_t src_pitch, char* out, std::size_t out_pitch,
                            const float* weights) {
  allow_next_grid();
  extern __shared__ float4 row_shared[];
  char* const base = reinterpret_cast<char*>(row_shared);
  float* const w = reinterpret_cast<float*>(base);
  In* const raw = reinterpret_cast<In*>(base + (s.taps + 3) / 4 * 16);
  const RowBlock b = row_reduce_block<P>(s, static_cast<int>(blockIdx.x));
  const int thread = static_cast<int>(threadIdx.x);
  row_reduce_fill<P>(s, b, thread, DeviceRaw<In>{src, src_pitch, raw, weights, w});
  wait_async_copies();
  __syncthreads();
  row_reduce_pass<P>(s, b, thread, SharedSpan<In>{raw}, SharedSpan<float>{w}, DeviceStore<Out>{out, out_pitch});
}

template <class Coarse, class Accum>
struct DeviceRows {
  const char* r;
  std::size_t pitch;
  __device__ Accum load(int row, int col) const {
    return to_accum_via_i2f(reinterpret_cast<const Coarse*>(r + static_cast<std::size_t>(row) * pitch)[col]);
  }
};

template <class P, class Coarse, class Accum>
__global__ void __launch_bounds__(P::kThreads)
    MultiresColumnReduceKernel(ColumnReduceStage s, const char* r, std::size_t r_pitch, char* out, std::size_t out_pitch,
                               const float* weights) {
  wait_for_previous_grid();  // R
  allow_next_grid();
  __shared__ Accum partial[column_reduce_partial_count<P>()];
  const int block = static_cast<int>(blockIdx.x), thread = static_cast<int>(threadIdx.x);
  column_reduce_slice<P>(s, block, thread, DeviceRows<Coarse, Accum>{r, r_pitch}, weights, SharedSpan<Accum>{partial});
  __syncthreads();
  column_reduce_combine<P>(s, block, thread, SharedSpan<Accum>{partial}, DeviceStore<Coarse>{out, out_pitch});
}

template <class Coarse, class Accum>
struct DeviceRegion {
  const char* b;
  std::size_t pitch;
  Accum* region;
  const float* weights;
  float* shared_weights;
  __device__ void copy(int slot, int row, int col) const {
    region[slot] = to_accum_via_i2f(reinterpret_cast<const Coarse*>(b + static_cast<std::size_t>(row) * pitch)[col]);
  }
  __device__ void copy_weight(int i) const { shared_weights[i] = weights[i]; }
};

// The expand's output. store_group writes kGroup pixels with 16-byte stores (one for 4-byte pixels,
// four for RGBA32F) where the row and the destination allow it (vector_ok: base and pitch multiples
// of 16, checked at launch).
template <class Fine>
struct DevicePixels {
  using Word = typename ExpandStore<Fine>::Word;
  char* dst;
  std::size_t pitch;
  bool vector_ok;
  __device__ void store(int x, int y, Word word) const {
    reinterpret_cast<Word*>(dst + static_cast<std::size_t>(y) * pitch)[x] = word;
  }
  __device__ void store_group(int x, int y, const Word (&words)[ExpandKernelPolicy::kGroup]) const {
    static_assert(sizeof(words) % 16 == 0 && sizeof(Word) == sizeof(Fine), "a group is whole 16-byte stores");
    Word* const row = reinterpret_cast<Word*>(dst + static_cast<std::size_t>(y) * pitch);
    if (vector_ok) {
      constexpr int kVectors = static_cast<int>(sizeof(words) / 16);
      uint4 vectors[kVectors];
      memcpy(vectors, words, sizeof vectors);
      GAUSSLAB_UNROLL
      for (int i = 0; i < kVectors; ++i) reinterpret_cast<uint4*>(row + x)[i] = vectors[i];
    } else {
      GAUSSLAB_UNROLL
      for (int i = 0; i < ExpandKernelPolicy::kGroup; ++i) row[x + i] = words[i];
    }
  }
};

template <ExpandShape Shape, class Fine, class Coarse, class Accum>
__global__ void __launch_bounds__(ExpandKernelPolicy::kThreads, 4)
    MultiresExpandKernel(ExpandStage s, const char* b, std::size_t b_pitch, char* dst, std::size_t dst_pitch,
                         bool vector_stores, const float* weights) {
  using P = ExpandKernelPolicy;
  wait_for_previous_grid();  // B
  extern __shared__ float4 expand_shared[];
  const ExpandLayout l = expand_layout<P, Accum>(s.d, s.chunks);
  char* const base = reinterpret_cast<char*>(expand_shared);
  float* const w = reinterpret_cast<float*>(base);
  const SharedSpan<Accum> region{reinterpret_cast<Accum*>(base + l.b_offset_bytes)};
  const SharedSpan<Accum> v{reinterpret_cast<Accum*>(base + l.v_offset_bytes)};
  const ExpandRegion r = expand_region<P>(s, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  const int thread = static_cast<int>(threadIdx.x);
  expand_fill<P>(s, l, r, thread, DeviceRegion<Coarse, Accum>{b, b_pitch, region.data, weights, w});
  __syncthreads();
  const DevicePixels<Fine> out{dst, dst_pitch, vector_stores};
  const auto chunks = [&](const auto& horizontal) {
    for (int chunk = 0; chunk * P::kChunkH < r.h; ++chunk) {
      if (chunk > 0) __syncthreads();  // the last chunk's horizontal pass has read v
      expand_vertical<P>(s, l, r, chunk, thread, region, SharedSpan<float>{w}, v);
      __syncthreads();
      horizontal(chunk);
    }
  };
  if constexpr (expand_strided<Fine>()) {
    const auto group = expand_strided_group<P>(s, r, thread, SharedSpan<float>{w});
    chunks([&](int chunk) { expand_horizontal_strided<P, Fine>(l, r, chunk, thread, group, v, out); });
  } else {
    const auto group = expand_group<expand_window(Shape), P>(s, r, thread, SharedSpan<float>{w});
    chunks([&](int chunk) { expand_horizontal<Shape, P, Fine>(l, r, chunk, thread, group, v, out); });
  }
}

// ---- launch ---------------------------------------------------------------------------------------

std::string kib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

// How the RGBA8 row reduce runs on this device: on the tensor cores (sm_80 on, up to row_mma::kMaxD
// and 65535 row blocks) with the samples as fp16 subnormals (one byte permute; the H100's tensor cores
// keep them), or as 1024 + x less 1024 (GAUSSLAB_MULTIRES_ROW_MMA=biased, for a device whose tensor
// cores would not); or on the CUDA cores (F32, older devices, GAUSSLAB_MULTIRES_ROW_MMA=0 for
// measurements against it). Decided once per prepare.
enum class RowMma { Off, Subnormal, Biased };
RowMma row_mma_mode(PixelFormat format, int height) {
  if (format != PixelFormat::Rgba8 || div_up(height, row_mma::kRows) > 65535 || cuda_device_status().compute_major < 8)
    return RowMma::Off;
  const char* text = std::getenv("GAUSSLAB_MULTIRES_ROW_MMA");
  const std::string mode = text == nullptr ? "" : text;
  return mode == "0" ? RowMma::Off : mode == "biased" ? RowMma::Biased : RowMma::Subnormal;
}

// The largest d that takes the fused 2D reduce (rows + columns above): fused_reduce_max_d, or 3 where
// the row reduce runs on the tensor cores (H100, 4096², sigma 11 (d 4): 0.196 ms against 0.221 fused;
// sigma 8 (d 3): 0.248 against 0.232); GAUSSLAB_MULTIRES_FUSED_MAX_D for tuning measurements
// (gpu-check's speed stage compares both paths with it).
// RGBA32F: 3 (d 2 and 3 are sigma 4 to 10; at d 4 its 16-byte fine tile and apron take 145 KiB, one
// block an SM).
int fused_max_d(PixelFormat format, RowMma row_mma) {
  if (const char* text = std::getenv("GAUSSLAB_MULTIRES_FUSED_MAX_D")) return std::atoi(text);
  if (row_mma != RowMma::Off || format == PixelFormat::Rgba32F) return 3;
  return fused_reduce_max_d(format == PixelFormat::Rgba8);
}

// Whether the column reduce, the blur and the expand launch as dependents of the kernel before them
// (compute capability 9.0 on): H100, 4096² RGBA8, the four kernels of sigma 8 take 141.4 µs and the
// run 146.4 without; GAUSSLAB_MULTIRES_OVERLAP=0 launches them one after another, for measurements.
bool overlap_kernels() {
  const char* text = std::getenv("GAUSSLAB_MULTIRES_OVERLAP");
  return cuda_device_status().compute_major >= 9 && !(text != nullptr && std::string(text) == "0");
}

// Row pitch of a coarse array: a multiple of 128 bytes.
std::size_t coarse_pitch(int width, std::size_t pixel_bytes) {
  return (static_cast<std::size_t>(width) * pixel_bytes + 127) / 128 * 128;
}

// f(RowReduceWidePolicy{}) or f(RowReduceNarrowPolicy{}): the one place the row reduce's policy is
// chosen from MultiresLaunch::rows_wide.
template <class F>
void with_row_reduce_policy(bool wide, const F& f) {
  if (wide)
    f(RowReduceWidePolicy{});
  else
    f(RowReduceNarrowPolicy{});
}

// Everything one run launches, from the plan.
struct MultiresLaunch {
  Plan plan;
  bool fused = true;
  bool rows_wide = true;  // the row reduce's policy (row_reduce_is_wide)
  RowMma rows_mma = RowMma::Off;  // RGBA8: the row reduce on the tensor cores (multires_row_mma.cuh)
  bool overlap = false;  // later kernels launched to overlap the one before (dependent_launch.cuh)
  row_mma::Stage rows_mma_stage;
  ReduceStage reduce, blur;
  RowReduceStage rows;
  ColumnReduceStage columns;
  ExpandStage expand;
  unsigned reduce_shared = 0, blur_shared = 0, rows_shared = 0, rows_mma_shared = 0, expand_shared = 0;
  std::size_t c_pitch = 0, b_pitch = 0, r_pitch = 0;
  std::size_t blur_weights = 0, expand_weights = 0;  // float offsets in the weights buffer
  std::size_t rows_mma_table = 0;                     // the same, a multiple of 4 (16-byte copies)
  std::vector<float> weights;                          // prefilter by phase, blur, expand
};

template <PixelFormat F>
MultiresLaunch multires_launch_for(const FilterProblem& problem) {
  using T = Types<F>;
  using Fine = typename T::Fine;
  using Coarse = typename T::Coarse;
  using Accum = typename T::Accum;
  const double scale = F == PixelFormat::Rgba8 ? kCoarseScaleRgba8 : 1.0;
  MultiresLaunch m;
  m.plan = make_plan(problem.params.sigma, problem.width, problem.height, sigma_per_step_for(F));
  const Plan& p = m.plan;
  const int taps1 = static_cast<int>(p.prefilter.size());
  if (taps_in_phase(taps1, p.d, 0) > kMaxPhaseTaps)
    throw std::logic_error("multires: a prefilter phase of " + std::to_string(taps_in_phase(taps1, p.d, 0)) +
                           " taps exceeds the kernels' " + std::to_string(kMaxPhaseTaps));
  const RowMma row_mma = row_mma_mode(F, problem.height);
  m.fused = p.d <= fused_max_d(F, row_mma);
  m.overlap = overlap_kernels();

  for (double w : prefilter_by_phase(p)) m.weights.push_back(static_cast<float>(w));
  m.blur_weights = m.weights.size();
  for (double w : p.blur) m.weights.push_back(static_cast<float>(w));
  m.expand_weights = m.weights.size();
  for (float w : expand_kernel_weights(p, scale)) m.weights.push_back(w);  // vertical carries 1 / 257 for RGBA8

  m.reduce.d = p.d;
  m.reduce.taps = taps1;
  m.reduce.origin_x = p.x.fine_origin;
  m.reduce.origin_y = p.y.fine_origin;
  m.reduce.out_w = p.x.c_count;
  m.reduce.out_h = p.y.c_count;
  m.reduce.src_w = problem.width;
  m.reduce.src_h = problem.height;
  m.reduce.border = problem.params.border;
  m.reduce.tile_w = m.reduce.tile_h = reduce_tile_side(p.d, sizeof(Fine) == 16);
  m.reduce.out_scale = static_cast<float>(scale);
  m.reduce_shared = reduce_layout<Fine, Accum>(m.reduce).total_bytes;

  m.rows.d = p.d;
  m.rows.taps = taps1;
  m.rows.origin = p.x.fine_origin;
  m.rows.out_w = p.x.c_count;
  m.rows.src_w = problem.width;
  m.rows.src_h = problem.height;
  m.rows.border = problem.params.border;
  m.rows.out_scale = static_cast<float>(scale);
  m.rows_wide = row_reduce_is_wide(p.d);
  with_row_reduce_policy(m.rows_wide, [&](auto policy) {
    using P = decltype(policy);
    m.rows.groups = row_reduce_groups_for<P>(p.d, taps1, row_reduce_span_target<Fine>());
    m.rows_shared = row_reduce_shared_bytes<P, Fine>(m.rows);
  });

  m.rows_mma = m.fused || p.d > row_mma::kMaxD ? RowMma::Off : row_mma;
  if (m.rows_mma != RowMma::Off) {
    m.rows_mma_stage = row_mma::make_stage(m.rows);
    m.rows_mma_shared = row_mma::shared_bytes(m.rows_mma_stage);
    while (m.weights.size() % 4 != 0) m.weights.push_back(0.0f);
    m.rows_mma_table = m.weights.size();
    for (unsigned word : row_mma::make_table(m.rows_mma_stage, p.prefilter)) {
      float bits;
      std::memcpy(&bits, &word, sizeof bits);
      m.weights.push_back(bits);
    }
  }

  m.columns.d = p.d;
  m.columns.taps = taps1;
  m.columns.origin = p.y.fine_origin;
  m.columns.out_w = p.x.c_count;
  m.columns.out_h = p.y.c_count;
  m.columns.src_h = problem.height;
  m.columns.border = problem.params.border;

  m.blur.d = 1;
  m.blur.taps = static_cast<int>(p.blur.size());
  m.blur.out_w = p.x.b_count;
  m.blur.out_h = p.y.b_count;
  m.blur.src_w = p.x.c_count;
  m.blur.src_h = p.y.c_count;
  m.blur.border = BorderMode::Nearest;
  m.blur.tile_w = m.blur.tile_h = reduce_tile_side(1);
  m.blur_shared = reduce_layout<Coarse, Accum>(m.blur).total_bytes;

  m.expand.d = p.d;
  m.expand.d_magic = divide_magic(p.d);
  m.expand.width = problem.width;
  m.expand.height = problem.height;
  m.expand.b_w = p.x.b_count;
  m.expand.b_h = p.y.b_count;
  m.expand.chunks = expand_chunks_for<ExpandKernelPolicy, Accum>(p.d);
  m.expand_shared = expand_layout<ExpandKernelPolicy, Accum>(p.d, m.expand.chunks).total_bytes;

  m.c_pitch = coarse_pitch(p.x.c_count, sizeof(Coarse));
  m.b_pitch = coarse_pitch(p.x.b_count, sizeof(Coarse));
  m.r_pitch = m.fused ? 0 : coarse_pitch(p.x.c_count, sizeof(Coarse));
  return m;
}

// fn(std::integral_constant<PixelFormat, F>{}) with the format the kernels run (RGBA8, RGBA32F or F32).
template <class Fn>
decltype(auto) with_kernel_format(PixelFormat format, const Fn& fn) {
  if (format == PixelFormat::Rgba8) return fn(std::integral_constant<PixelFormat, PixelFormat::Rgba8>{});
  if (format == PixelFormat::Rgba32F) return fn(std::integral_constant<PixelFormat, PixelFormat::Rgba32F>{});
  return fn(std::integral_constant<PixelFormat, PixelFormat::F32>{});
}

MultiresLaunch multires_launch(const FilterProblem& problem) {
  return with_kernel_format(problem.format, [&](auto f) { return multires_launch_for<decltype(f)::value>(problem); });
}

unsigned largest_shared(const MultiresLaunch& m) {
  const unsigned reduce = m.fused                        ? m.reduce_shared
                          : m.rows_mma != RowMma::Off ? m.rows_mma_shared
                                                      : m.rows_shared;
  return std::max({reduce, m.blur_shared, m.expand_shared});
}

// Every kernel may take all the dynamic shared memory the device allows (the same ceiling for every
// instance, so instances of other sigmas never lower it under each other; method_limits has refused
// what does not fit).
template <class Kernel>
void allow_shared(Kernel kernel) {
  GpuMethod::set_shared_memory(kernel, cuda_device_status().shared_memory_per_block_optin,
                               GpuMethod::Carveout::Default);
}

unsigned check_grid(long long blocks, const char* kernel) {
  return GpuMethod::grid_blocks(blocks, std::string("multires: ") + kernel);
}

template <class P, class Fine, class Coarse, class Accum>
void launch_row_reduce(const MultiresLaunch& m, const ConstImageView& src, const ScratchBuffer& r, const float* weights,
                       cudaStream_t stream) {
  const long long blocks = row_reduce_block_count<P>(m.rows);
  check_grid(blocks, "MultiresRowReduceKernel");
  MultiresRowReduceKernel<P, Fine, Coarse, Accum><<<static_cast<unsigned>(blocks), P::kThreads, m.rows_shared, stream>>>(
      m.rows, static_cast<const char*>(src.data), src.pitch_bytes, r.as<char>(), m.r_pitch, weights);
  GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresRowReduceKernel", stream);
}

// The tensor-core row reduce's kernel for the way its samples become fp16.
auto row_mma_kernel(RowMma mode) {
  return mode == RowMma::Biased ? MultiresRowReduceMmaKernel<false> : MultiresRowReduceMmaKernel<true>;
}

void launch_row_reduce_mma(const MultiresLaunch& m, const ConstImageView& src, const ScratchBuffer& r,
                           const float* weights, cudaStream_t stream) {
  row_mma::Stage s = m.rows_mma_stage;
  s.aligned16 = rows_aligned(src, 16);
  const long long blocks = static_cast<long long>(row_mma::blocks_x(s)) * row_mma::blocks_y(s);
  check_grid(blocks, "MultiresRowReduceMmaKernel");
  const dim3 grid(static_cast<unsigned>(row_mma::blocks_x(s)), static_cast<unsigned>(row_mma::blocks_y(s)));
  row_mma_kernel(m.rows_mma)<<<grid, 32 * s.warps, m.rows_mma_shared, stream>>>(
      s, static_cast<const char*>(src.data), src.pitch_bytes, r.as<char>(), m.r_pitch,
      reinterpret_cast<const unsigned*>(weights + m.rows_mma_table));
  GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresRowReduceMmaKernel", stream);
}

template <PixelFormat F>
void launch_all(const MultiresLaunch& m, const ConstImageView& src, const ImageView& dst, const ScratchBuffer& c,
                const ScratchBuffer& b, const ScratchBuffer& r, const float* weights, StageTimer* timer,
                cudaStream_t stream) {
  using T = Types<F>;
  using Fine = typename T::Fine;
  using Coarse = typename T::Coarse;
  using Accum = typename T::Accum;
  {
    ScopedStage stage(timer, "reduce", stream);
    if (m.fused) {
      const long long blocks = reduce_block_count(m.reduce);
      check_grid(blocks, "MultiresReduceKernel");
      MultiresReduceKernel<Fine, Coarse, Accum><<<static_cast<unsigned>(blocks), ReduceKernelPolicy::kThreads,
                                                  m.reduce_shared, stream>>>(
          m.reduce, static_cast<const char*>(src.data), src.pitch_bytes, c.as<char>(), m.c_pitch, weights);
      GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresReduceKernel", stream);
    } else {
      if (m.rows_mma != RowMma::Off)
        launch_row_reduce_mma(m, src, r, weights, stream);
      else
        with_row_reduce_policy(m.rows_wide, [&](auto policy) {
          launch_row_reduce<decltype(policy), Fine, Coarse, Accum>(m, src, r, weights, stream);
        });
      with_column_reduce_policy(m.columns.d, [&](auto policy) {
        using P = decltype(policy);
        const long long column_blocks = column_reduce_block_count<P>(m.columns);
        check_grid(column_blocks, "MultiresColumnReduceKernel");
        launch_after_previous(m.overlap, MultiresColumnReduceKernel<P, Coarse, Accum>,
                              dim3(static_cast<unsigned>(column_blocks)), dim3(P::kThreads), 0, stream, m.columns,
                              r.as<const char>(), m.r_pitch, c.as<char>(), m.c_pitch, weights);
        GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresColumnReduceKernel", stream);
      });
    }
  }
  {
    ScopedStage stage(timer, "blur", stream);
    const long long blocks = reduce_block_count(m.blur);
    check_grid(blocks, "MultiresReduceKernel (blur)");
    launch_after_previous(m.overlap, MultiresReduceKernel<Coarse, Coarse, Accum>, dim3(static_cast<unsigned>(blocks)),
                          dim3(ReduceKernelPolicy::kThreads), m.blur_shared, stream, m.blur, c.as<const char>(),
                          m.c_pitch, b.as<char>(), m.b_pitch, weights + m.blur_weights);
    GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresReduceKernel (blur)", stream);
  }
  {
    ScopedStage stage(timer, "expand", stream);
    const dim3 grid(static_cast<unsigned>(expand_tiles_x<ExpandKernelPolicy>(m.expand)),
                    static_cast<unsigned>(expand_tiles_y<ExpandKernelPolicy>(m.expand)));
    check_grid(static_cast<long long>(grid.x) * grid.y, "MultiresExpandKernel");
    const bool vector_stores = rows_aligned(dst, 16);
    const auto launch_expand = [&](auto shape) {
      launch_after_previous(m.overlap, MultiresExpandKernel<decltype(shape)::value, Fine, Coarse, Accum>, grid,
                            dim3(ExpandKernelPolicy::kThreads), m.expand_shared, stream, m.expand, b.as<const char>(),
                            m.b_pitch, static_cast<char*>(dst.data), dst.pitch_bytes, vector_stores,
                            weights + m.expand_weights);
    };
    if constexpr (expand_strided<Fine>())
      launch_expand(std::integral_constant<ExpandShape, ExpandShape::Any>{});  // the shape plays no part
    else
      with_expand_shape(m.expand.d, launch_expand);
    GAUSSLAB_CUDA_CHECK_LAUNCH("MultiresExpandKernel", stream);
  }
}

template <PixelFormat F>
void set_shared_limits(const MultiresLaunch& m) {
  using T = Types<F>;
  using Fine = typename T::Fine;
  using Coarse = typename T::Coarse;
  using Accum = typename T::Accum;
  if (m.fused)
    allow_shared(MultiresReduceKernel<Fine, Coarse, Accum>);
  else if (m.rows_mma != RowMma::Off)
    allow_shared(row_mma_kernel(m.rows_mma));
  else
    with_row_reduce_policy(m.rows_wide, [](auto policy) {
      allow_shared(MultiresRowReduceKernel<decltype(policy), Fine, Coarse, Accum>);
    });
  allow_shared(MultiresReduceKernel<Coarse, Coarse, Accum>);
  allow_shared(MultiresExpandKernel<ExpandShape::Any, Fine, Coarse, Accum>);
  if constexpr (!expand_strided<Fine>()) {
    allow_shared(MultiresExpandKernel<ExpandShape::Spread, Fine, Coarse, Accum>);
    allow_shared(MultiresExpandKernel<ExpandShape::Pairs, Fine, Coarse, Accum>);
    allow_shared(MultiresExpandKernel<ExpandShape::Aligned, Fine, Coarse, Accum>);
  }
}

// ---- method ---------------------------------------------------------------------------------------

class Multires final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  // RGBA8, RGBA32F and F32 as they are; 8-bit images of 1 to 3 channels widened to RGBA8 (its bound
  // is proven for bytes through the RGBA8 path's 16-bit coarse images), the other float ones as F32
  // planes.
  Route route(PixelFormat format) const override {
    if (format == PixelFormat::Rgba8 || format == PixelFormat::Rgba32F || format == PixelFormat::F32)
      return Route::Native;
    return sample_type(format) == SampleType::U8 ? Route::WidenToRgba8 : Route::FloatPlanes;
  }

 protected:
  std::string method_limits(const FilterProblem& outer) const override {
    FilterProblem problem = outer;  // as the kernels run it
    problem.format = kernel_format(outer.format);
    const FilterParams& params = problem.params;
    if (params.sigma < multires::kMinSigma)
      return "sigma " + std::to_string(params.sigma).substr(0, 4) +
             " is below multires's 4 (it decimates by at least 2): use separable_fused";
    if (params.fixed_radius >= 0 || params.truncate < multires::kMinTruncate)
      return "multires approximates the Gaussian cut at 4 sigma or later; a shorter kernel (truncate below 4 or a "
             "fixed radius) differs from it by more than its bound: use a FIR method";
    if (!expand_divides_exactly(
            multires::decimation_for(params.sigma, multires::sigma_per_step_for(problem.format)), problem.width,
            problem.height))
      return "an image side of " + std::to_string(std::max(problem.width, problem.height)) +
             " pixels is beyond multires's index arithmetic at this sigma (side × its decimation must stay below "
             "2^32): use recursive";
    if (div_up(problem.height, ExpandKernelPolicy::kChunkH) > 65535)
      return "an image of " + std::to_string(problem.height) + " rows is beyond multires's grid (at most " +
             std::to_string(65535 * ExpandKernelPolicy::kChunkH) + "): use recursive";
    const CudaDeviceStatus& device = cuda_device_status();
    const unsigned bytes = largest_shared(multires_launch(problem));
    if (device.available && bytes > device.shared_memory_per_block_optin)
      return "sigma " + std::to_string(params.sigma).substr(0, 5) + " needs " + kib(bytes) +
             " of shared memory per block; " + device.name + " offers " + kib(device.shared_memory_per_block_optin) +
             ": use recursive or fft";
    return {};
  }

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return kMultiresBound; }

  void on_prepare(const FilterProblem& problem) override {
    launch_ = multires_launch(problem);
    const Plan& p = launch_.plan;
    c_.reserve(launch_.c_pitch * static_cast<std::size_t>(p.y.c_count), "the coarse image C");
    b_.reserve(launch_.b_pitch * static_cast<std::size_t>(p.y.b_count), "the blurred coarse image B");
    if (!launch_.fused) r_.reserve(launch_.r_pitch * static_cast<std::size_t>(problem.height), "the row-reduced image R");
    weights().reserve(kMaxWeights);
    weights().set(launch_.weights, "the prefilter, blur and spline weights");
    with_kernel_format(problem.format, [&](auto f) { set_shared_limits<decltype(f)::value>(launch_); });
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    with_kernel_format(kernel_problem().format, [&](auto f) {
      launch_all<decltype(f)::value>(launch_, src, dst, c_, b_, r_, weights().device(), timer, stream);
    });
  }

 private:
  // The most weights of any sigma up to 200 (d 80: a 513-tap prefilter, the blur, 2 × 80 × 5 spline
  // weights; up to d 32 also the row reduce's table of fp16 halves, 8 × 39 + 103 words), reserved once
  // so that a new sigma never reallocates under a run.
  static constexpr std::size_t kMaxWeights = 2048 + 512;
  MultiresLaunch launch_;
  ScratchBuffer c_{fence()}, b_{fence()}, r_{fence()};
};

}  // namespace

MethodEntry multires_method() {
  MethodInfo info{"multires", "Multi-resolution (reduce, blur, B-spline expand)",
                  "Prefilter and decimate by d = σ/2 (RGBA8) or σ/2.5 (F32), Gaussian blur of the small image, cubic "
                  "B-spline expand: "
                  "about 20 multiply-adds per pixel and channel and one read and one write of the image at any "
                  "σ ≥ 4",
                  {},
                  Backend::Cuda};
  // RGBA8 (8-bit widened to it), RGBA32F and F32 compiled, the other float ones as F32 planes
  info.formats = FormatSet::of_samples({SampleType::U8, SampleType::F16, SampleType::F32});
  info.accuracy = accuracy_promise("an approximation with a proven bound", multires::kMultiresBound, info.formats,
                                   "0.5 of the levels the rounding");
  return {info, [info] { return std::make_unique<Multires>(info); }};
}

}  // namespace gausslab
