// The kernels of spatio-temporal whitening: projections and coarse search, the fine shift sums,
// the solve for the shift and the history weights, and the whitening itself. The maths is in
// core/sequence_maths.hpp, shared with the CPU reference; here is only the schedule. A frame's
// results pass from kernel to kernel in device memory (coarse offset, partial sums, shift record,
// weights), so the host enqueues a whole frame without waiting. docs/sequence.md has the maths
// and the schedule. Cost per frame: the whitening reads N + 1 frames and writes one (it bounds the
// frame at large sizes); the shift estimation reads the frame about three times; the coarse search
// and the solve are one block each (latency, not bandwidth: they bound the frame at 512²).
// Measured (NVIDIA H100 80GB HBM3, N = 20, as a CUDA graph): 0.048 ms per 512² frame, 0.486 ms per
// 3648×2736 frame (whitening 0.313 ms of it, 95 % of the copy bandwidth for what it reads).
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/sequence_kernels.hpp"

namespace gausslab::seq {

namespace {

// ---- launch shapes ---------------------------------------------------------------------------
constexpr int kProjectionThreads = 256;  // loads a kProjectionTile² tile, 2·tile threads then sum
constexpr int kSearchThreads = 1024;     // one block: warps take the lags (1024: half the lags per warp of 512)
constexpr int kFineThreads = 256;
constexpr int kFinePixelsPerThread = 8;  // grid size: enough blocks to fill a GPU, at most 1024
constexpr int kMaxFineBlocks = 1024;
constexpr int kSolveThreads = 256;
struct WhitenPolicy {
  static constexpr int kThreadsX = 32, kThreadsY = 8, kRowsPerThread = 4;
};
static_assert(kProjectionThreads >= 2 * kProjectionTile, "one thread per tile column and per tile row");
static_assert(kSearchThreads % 32 == 0 && kFineThreads % 32 == 0 && kSolveThreads % 32 == 0, "whole warps");
static_assert(kSolveThreads >= kMaxHistory, "one thread per history position");
static_assert(sizeof(WhiteningWeights) % sizeof(int) == 0, "weights copied to shared memory as ints");

// ---- block reduction of the kSumCount shift sums, in a fixed order -----------------------------
// Each warp adds its lanes pairwise (shuffles), then thread k adds the warps' totals in warp order.
template <int kThreads>
__device__ void reduce_sums(double (&acc)[kSumCount], double (&warp_totals)[kThreads / 32][kSumCount]) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 0; k < kSumCount; ++k) {
    double v = acc[k];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_totals[warp][k] = v;
  }
  __syncthreads();
  if (threadIdx.x < kSumCount) {
    double total = 0.0;
    for (int w = 0; w < kThreads / 32; ++w) total += warp_totals[w][threadIdx.x];
    acc[threadIdx.x] = total;  // thread k holds sum k
  }
}

// ---- projections ---------------------------------------------------------------------------
__global__ void projectionPartialsKernel(GreyView frame, float* column_partials, float* row_partials) {
  constexpr int T = kProjectionTile;
  __shared__ float tile[T][T + 1];  // odd pitch: the row sums read down a column without conflicts
  const int x0 = blockIdx.x * T, y0 = blockIdx.y * T;
  const int tw = min(T, frame.width - x0), th = min(T, frame.height - y0);
  for (int i = threadIdx.x; i < T * T; i += blockDim.x) {
    const int tx = i % T, ty = i / T;
    if (tx < tw && ty < th) tile[ty][tx] = frame.at(x0 + tx, y0 + ty);
  }
  __syncthreads();
  const GreyView t{&tile[0][0], tw, th, T + 1};
  const int i = threadIdx.x;
  if (i < tw) {
    column_partials[static_cast<std::size_t>(blockIdx.y) * frame.width + x0 + i] = column_partial(t, i, 0, th);
  } else if (i >= T && i - T < th) {
    row_partials[static_cast<std::size_t>(blockIdx.x) * frame.height + y0 + (i - T)] = row_partial(t, i - T, 0, tw);
  }
}

__global__ void profilesKernel(const float* column_partials, const float* row_partials, int width, int height,
                               double* columns, double* rows) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int tiles_y = (height + kProjectionTile - 1) / kProjectionTile;
  const int tiles_x = (width + kProjectionTile - 1) / kProjectionTile;
  if (i < width) {
    double s = 0.0;
    for (int t = 0; t < tiles_y; ++t) s += column_partials[static_cast<std::size_t>(t) * width + i];
    columns[i] = s / height;
  } else if (i < width + height) {
    const int y = i - width;
    double s = 0.0;
    for (int t = 0; t < tiles_x; ++t) s += row_partials[static_cast<std::size_t>(t) * height + y];
    rows[y] = s / width;
  }
}

__global__ void referenceProfilesKernel(const double* columns, const double* rows, int width, int height,
                                        double* reference_columns, double* reference_rows) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < width) reference_columns[i] = high_pass(columns, width, i);
  else if (i < width + height) reference_rows[i - width] = high_pass(rows, height, i - width);
}

// ---- coarse search: one block ------------------------------------------------------------------
__global__ void __launch_bounds__(kSearchThreads)
    coarseSearchKernel(const double* columns, const double* rows, const double* reference_columns,
                       const double* reference_rows, int width, int height, int search_radius,
                       double* high_passed, int2* offset) {
  __shared__ double mismatch[2 * (2 * kMaxSearchRadius + 1)];
  double* hp_columns = high_passed;
  double* hp_rows = high_passed + width;
  for (int i = threadIdx.x; i < width + height; i += blockDim.x) {
    if (i < width) hp_columns[i] = high_pass(columns, width, i);
    else hp_rows[i - width] = high_pass(rows, height, i - width);
  }
  __syncthreads();  // the block's global writes are visible to the block after the barrier
  const int rx = search_radius_for(width, search_radius), ry = search_radius_for(height, search_radius);
  const int lags_x = 2 * rx + 1, items = lags_x + 2 * ry + 1;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int item = warp; item < items; item += kSearchThreads / 32) {
    const bool along_x = item < lags_x;
    const int lag = along_x ? item - rx : item - lags_x - ry;
    const int n = along_x ? width : height;
    const double* pf = along_x ? hp_columns : hp_rows;
    const double* pr = along_x ? reference_columns : reference_rows;
    double v = mismatch_lane(pf, pr, n, lag, lane);
    for (int o = kMismatchLanes / 2; o > 0; o /= 2) v = add_rn(v, __shfl_down_sync(0xffffffffu, v, o));
    if (lane == 0) mismatch[item] = mismatch_mean(v, n, lag);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int best_x = 0, best_y = 0;
    for (int lag = -rx; lag <= rx; ++lag)
      if (lag_better(mismatch[lag + rx], lag, mismatch[best_x + rx], best_x)) best_x = lag;
    for (int lag = -ry; lag <= ry; ++lag)
      if (lag_better(mismatch[lags_x + lag + ry], lag, mismatch[lags_x + best_y + ry], best_y)) best_y = lag;
    *offset = make_int2(best_x, best_y);
  }
}

// ---- reference local mean ---------------------------------------------------------------------
__global__ void localMeanKernel(GreyView src, float* dst, std::ptrdiff_t dst_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < src.width && y < src.height) dst[y * dst_stride + x] = local_mean(src, x, y);
}

// ---- fine sums ------------------------------------------------------------------------------
__global__ void __launch_bounds__(kFineThreads)
    fineSumsKernel(GreyView reference_mean, GreyView frame, const int2* offset, double* partials) {
  __shared__ double warp_totals[kFineThreads / 32][kSumCount];
  int kx = 0, ky = 0;
  if (offset) {
    const int2 k = *offset;
    kx = k.x;
    ky = k.y;
  }
  const Region region = fine_region(frame.width, frame.height, kx, ky);
  double acc[kSumCount] = {};
  // Rows over the blocks, columns over the threads (coalesced): no index division per pixel (a
  // 64-bit one cost more than the pixel's arithmetic on the H100).
  for (int y = region.y0 + static_cast<int>(blockIdx.x); y < region.y1; y += static_cast<int>(gridDim.x))
    for (int x = region.x0 + static_cast<int>(threadIdx.x); x < region.x1; x += static_cast<int>(blockDim.x))
      add_shift_terms(reference_mean, frame, x, y, kx, ky, acc);
  reduce_sums<kFineThreads>(acc, warp_totals);
  if (threadIdx.x < kSumCount) partials[static_cast<std::size_t>(blockIdx.x) * kSumCount + threadIdx.x] = acc[threadIdx.x];
}

// ---- solve: shift, then weights (one block) ---------------------------------------------------
__global__ void __launch_bounds__(kSolveThreads)
    solveKernel(const double* partials, int blocks, const int2* offset, int width, int height, int reference,
                ShiftRecord* records, int current_slot, HistoryArgs history, int degree, double gamma,
                WhiteningWeights* weights_out, FrameResult* result) {
  __shared__ double warp_totals[kSolveThreads / 32][kSumCount];
  __shared__ double sums[kSumCount];
  __shared__ ShiftRecord current;
  __shared__ HistoryShift shifts[kMaxHistory];
  __shared__ double gram[kMaxMoments * kMaxMoments];
  __shared__ double lambda[kMaxMoments];
  __shared__ double raw[kMaxHistory];
  __shared__ double monomials[kMaxHistory][kMaxMoments];
  __shared__ double total_weight;
  __shared__ int solved;
  const int tid = threadIdx.x;

  // 1. The fine kernel's partial sums, block by block in a fixed order.
  double acc[kSumCount] = {};
  for (int b = tid; b < blocks; b += blockDim.x)
    for (int k = 0; k < kSumCount; ++k) acc[k] += partials[static_cast<std::size_t>(b) * kSumCount + k];
  reduce_sums<kSolveThreads>(acc, warp_totals);
  if (tid < kSumCount) sums[tid] = acc[tid];
  __syncthreads();

  // 2. The shift.
  if (tid == 0) {
    int kx = 0, ky = 0;
    if (offset && !reference) {
      const int2 k = *offset;
      kx = k.x;
      ky = k.y;
    }
    ShiftSums s;
    for (int k = 0; k < kSumCount; ++k) s.s[k] = sums[k];
    ShiftRecord r = solve_shift(s, fine_region(width, height, kx, ky).count(), kx, ky);
    if (reference && r.status == static_cast<int>(ShiftStatus::Estimated)) {
      r.status = static_cast<int>(ShiftStatus::Reference);
      r.dx = r.dy = 0.0;
    }
    records[current_slot] = r;
    current = r;
  }
  __syncthreads();

  // 3. The weights: compute_weights (sequence_maths.hpp) with its loops spread over the threads.
  // Each history frame's monomials are computed once (one thread per frame); the Gram entries,
  // the right-hand side and the raw weights then sum them in compute_weights' order, with the
  // same operations, so the weights are the CPU's bit for bit. The kernel is one block waiting at
  // its barriers for its longest thread: the shorter each serial chain, the shorter the frame.
  const int n = history.count, m = moment_count(degree);
  if (tid < n) {
    const HistoryShift h = history_shift(records[history.slots[tid]], current);
    shifts[tid] = h;
    for (int e = 0; e < m; ++e) monomials[tid][e] = monomial(h.ex, h.ey, e);
  }
  __syncthreads();
  for (int e = tid; e < m * m; e += blockDim.x) {
    const int i = e / m, j = e % m;
    double s = i == j ? gamma : 0.0;
    for (int k = 0; k < n; ++k)
      if (shifts[k].used) s += monomials[k][i] * monomials[k][j];
    gram[e] = s;
  }
  for (int i = tid; i < m; i += blockDim.x) {
    double s = 0.0;
    for (int k = 0; k < n; ++k)
      if (shifts[k].used) s += monomials[k][i];
    lambda[i] = s;
  }
  __syncthreads();
  if (tid == 0) solved = m == 0 || cholesky_solve(gram, lambda, m);
  __syncthreads();
  if (tid < n) {
    double q = 0.0;  // raw_weight's polynomial
    if (solved && shifts[tid].used) {
      q = 1.0;
      for (int e = 0; e < m; ++e) q -= lambda[e] * monomials[tid][e];
    }
    raw[tid] = q;
  }
  __syncthreads();
  if (tid == 0) {
    int used = 0;
    double total = 0.0;
    for (int j = 0; j < n; ++j) {
      used += shifts[j].used;
      total += raw[j];
    }
    const bool ok = used > 0 && solved && total > 0.0;
    total_weight = ok ? total : 0.0;
    weights_out->count = n;
    weights_out->skip = ok ? 0 : 1;
    if (result) {
      result->shift = current;
      result->skip = ok ? 0 : 1;
    }
  }
  __syncthreads();
  if (tid < n) {  // every weight at once, not one after another on thread 0
    weights_out->c[tid] = total_weight > 0.0 ? static_cast<float>(raw[tid] / total_weight) : 0.0f;
    weights_out->kx[tid] = shifts[tid].kx;
    weights_out->ky[tid] = shifts[tid].ky;
  }
}

// ---- whitening ------------------------------------------------------------------------------
// One thread per column of kRowsPerThread rows (kThreadsY apart): every pixel reads the current
// frame and each history frame with a non-zero weight once (at its integer offset) and is written
// once. The rows' reads of one history frame are independent, so each thread keeps
// kRowsPerThread loads in flight; a warp reads 32 consecutive floats of a row.
__global__ void __launch_bounds__(WhitenPolicy::kThreadsX * WhitenPolicy::kThreadsY)
    whitenKernel(GreyView current, HistoryArgs history, const WhiteningWeights* weights, float* out,
                 std::ptrdiff_t out_stride) {
  __shared__ WhiteningWeights w;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = tid; i < static_cast<int>(sizeof(WhiteningWeights) / sizeof(int)); i += blockDim.x * blockDim.y)
    reinterpret_cast<int*>(&w)[i] = reinterpret_cast<const int*>(weights)[i];
  __syncthreads();
  const int x = blockIdx.x * WhitenPolicy::kThreadsX + threadIdx.x;
  if (x >= current.width) return;
  const int y0 = blockIdx.y * WhitenPolicy::kThreadsY * WhitenPolicy::kRowsPerThread + threadIdx.y;
  float values[WhitenPolicy::kRowsPerThread];
  if (w.skip) {
    for (float& v : values) v = 0.0f;
  } else {
    whiten_rows<float, WhitenPolicy::kRowsPerThread>(current, history.frames, w, x, y0, WhitenPolicy::kThreadsY, values);
  }
#pragma unroll
  for (int r = 0; r < WhitenPolicy::kRowsPerThread; ++r) {
    const int y = y0 + r * WhitenPolicy::kThreadsY;
    if (y < current.height) out[y * out_stride + x] = values[r];
  }
}

unsigned blocks_for(long long items, int per_block) { return static_cast<unsigned>((items + per_block - 1) / per_block); }

}  // namespace

SequenceScratchSizes sequence_scratch_sizes(int width, int height) {
  SequenceScratchSizes s;
  const int tiles_x = (width + kProjectionTile - 1) / kProjectionTile;
  const int tiles_y = (height + kProjectionTile - 1) / kProjectionTile;
  s.column_partials = tiles_y * width;
  s.row_partials = tiles_x * height;
  const long long pixels = static_cast<long long>(width) * height;
  const long long blocks = (pixels + kFineThreads * kFinePixelsPerThread - 1) / (kFineThreads * kFinePixelsPerThread);
  s.fine_blocks = static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxFineBlocks ? kMaxFineBlocks : blocks));
  return s;
}

void launch_projection_partials(const GreyView& frame, float* d_column_partials, float* d_row_partials,
                                cudaStream_t stream) {
  const dim3 grid(blocks_for(frame.width, kProjectionTile), blocks_for(frame.height, kProjectionTile));
  projectionPartialsKernel<<<grid, kProjectionThreads, 0, stream>>>(frame, d_column_partials, d_row_partials);
  GAUSSLAB_CUDA_CHECK_LAUNCH("projectionPartialsKernel", stream);
}

void launch_profiles(const float* d_column_partials, const float* d_row_partials, int width, int height,
                     double* d_columns, double* d_rows, cudaStream_t stream) {
  profilesKernel<<<blocks_for(width + height, 256), 256, 0, stream>>>(d_column_partials, d_row_partials, width,
                                                                        height, d_columns, d_rows);
  GAUSSLAB_CUDA_CHECK_LAUNCH("profilesKernel", stream);
}

void launch_reference_profiles(const double* d_columns, const double* d_rows, int width, int height,
                               double* d_reference_columns, double* d_reference_rows, cudaStream_t stream) {
  referenceProfilesKernel<<<blocks_for(width + height, 256), 256, 0, stream>>>(d_columns, d_rows, width, height,
                                                                                 d_reference_columns, d_reference_rows);
  GAUSSLAB_CUDA_CHECK_LAUNCH("referenceProfilesKernel", stream);
}

void launch_coarse_search(const double* d_columns, const double* d_rows, const double* d_reference_columns,
                          const double* d_reference_rows, int width, int height, int search_radius,
                          double* d_high_passed_scratch, int2* d_offset, cudaStream_t stream) {
  coarseSearchKernel<<<1, kSearchThreads, 0, stream>>>(d_columns, d_rows, d_reference_columns, d_reference_rows, width,
                                                        height, search_radius, d_high_passed_scratch, d_offset);
  GAUSSLAB_CUDA_CHECK_LAUNCH("coarseSearchKernel", stream);
}

void launch_local_mean(const GreyView& src, float* d_dst, std::ptrdiff_t dst_stride, cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(src.width, 32), blocks_for(src.height, 8));
  localMeanKernel<<<grid, block, 0, stream>>>(src, d_dst, dst_stride);
  GAUSSLAB_CUDA_CHECK_LAUNCH("localMeanKernel", stream);
}

void launch_fine_sums(const GreyView& reference_mean, const GreyView& frame, const int2* d_offset,
                      double* d_partials, int blocks, cudaStream_t stream) {
  fineSumsKernel<<<blocks, kFineThreads, 0, stream>>>(reference_mean, frame, d_offset, d_partials);
  GAUSSLAB_CUDA_CHECK_LAUNCH("fineSumsKernel", stream);
}

void launch_solve(const double* d_partials, int blocks, const int2* d_offset, int width, int height,
                  bool reference, ShiftRecord* d_records, int current_slot, const HistoryArgs& history, int degree,
                  double gamma, WhiteningWeights* d_weights, FrameResult* d_result, cudaStream_t stream) {
  solveKernel<<<1, kSolveThreads, 0, stream>>>(d_partials, blocks, d_offset, width, height, reference ? 1 : 0,
                                               d_records, current_slot, history, degree, gamma, d_weights, d_result);
  GAUSSLAB_CUDA_CHECK_LAUNCH("solveKernel", stream);
}

void launch_whiten(const GreyView& current, const HistoryArgs& history, const WhiteningWeights* d_weights,
                   float* d_out, std::ptrdiff_t out_stride, cudaStream_t stream) {
  using P = WhitenPolicy;
  const dim3 block(P::kThreadsX, P::kThreadsY);
  const dim3 grid(blocks_for(current.width, P::kThreadsX), blocks_for(current.height, P::kThreadsY * P::kRowsPerThread));
  whitenKernel<<<grid, block, 0, stream>>>(current, history, d_weights, d_out, out_stride);
  GAUSSLAB_CUDA_CHECK_LAUNCH("whitenKernel", stream);
}

}  // namespace gausslab::seq
