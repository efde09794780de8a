// The kernels of spatio-temporal whitening: projections and the coarse image, the coarse search
// over the whole frame and the integer search around it, the fine shift sums, the solve for the
// shift, the verdict and the history weights (polynomial, or from the correlation matrix), the
// whitening with its residual statistics, and the target removal. The maths is in
// core/sequence_*.hpp, shared with the CPU reference; here is only the schedule. A frame's results
// pass from kernel to kernel in device memory (the SequenceState, the records, the weights), so
// the host enqueues a whole frame without waiting. docs/sequence.md has the maths and the schedule.
// Cost per frame: the whitening reads N + 1 frames and writes one (it bounds the frame at large
// sizes); the shift estimation reads the frame about three times, the target removal reads the
// whitened frame once; the one-block kernels (coarse preparation and decision, solve, residual
// verdict) are latency, not bandwidth: they bound the frame at 512². The correlation weights read
// the N + 1 frames again on a sample of rows (about a million pixels).
// Measured on one NVIDIA H200 (N = 20, as a CUDA graph): the seed's pipeline (no coarse search,
// verdicts or target removal) 0.049 ms per 512² frame and 0.394 ms per 3648×2736 frame; this
// one, before its one-block kernels kept their work in shared memory, 0.30 and 0.96 ms (Nsight
// Compute at 512²: coarse preparation 130 µs, residual verdict 44 µs, coarse scores 39 µs,
// integer search 30 µs, whitening 24 µs); the rework is not measured yet.
#include <algorithm>

#include "gausslab/core/sequence_correlation.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/sequence_kernels.hpp"

namespace gausslab::seq {

namespace {

// ---- launch shapes ---------------------------------------------------------------------------
constexpr int kProjectionThreads = 256;  // loads a kProjectionTile² tile, 2·tile threads then sum
constexpr int kPrepareThreads = kCoarseLanes;  // one thread per lane of the ordered sums
constexpr int kScoreWarps = 8;           // lags per block of the score kernel (a warp each)
constexpr int kSearchThreads = 1024;     // one block: warps take the lags
constexpr int kFineThreads = 256;
constexpr int kFinePixelsPerThread = 8;  // grid size: enough blocks to fill a GPU, at most 1024
constexpr int kMaxFineBlocks = 1024;
constexpr int kSolveThreads = 256;
constexpr int kGramThreads = 256;
constexpr int kGramChunk = 64;           // pixels whose prediction errors a block holds at once
constexpr int kMaxGramBlocks = 2048;
constexpr int kVerdictThreads = 256;
constexpr int kCutMeanBlocks = 264;      // grid-stride: an idle launch costs a few blocks only
struct WhitenPolicy {
  static constexpr int kThreadsX = 32, kThreadsY = 8, kRowsPerThread = 4;
};
static_assert(kProjectionThreads >= 2 * kProjectionTile, "one thread per tile column and per tile row");
static_assert(kSearchThreads % 32 == 0 && kFineThreads % 32 == 0 && kSolveThreads % 32 == 0, "whole warps");
static_assert(kSolveThreads >= kMaxHistory, "one thread per history position");
static_assert(kSearchThreads >= kCoarseLanes && kVerdictThreads >= kCoarseLanes, "a thread per lane");
static_assert(sizeof(WhiteningWeights) % sizeof(int) == 0, "weights copied to shared memory as ints");
static_assert(kCoarsePixels * sizeof(double) + kCoarseLanes * sizeof(double) <= 40 * 1024, "prepare's shared memory");

// ---- the fixed-order sums of the one-block kernels -----------------------------------------
// ordered_sum (sequence_coarse.hpp) with its lanes on the block's first kCoarseLanes threads: lane
// l adds the items l, l + kCoarseLanes, ..., then the lanes are combined pairwise. All threads get
// the total.
template <class Item>
__device__ double block_ordered_sum(int n, Item item, double* lanes) {
  const int tid = threadIdx.x;
  if (tid < kCoarseLanes) {
    double s = 0.0;
    for (int i = tid; i < n; i += kCoarseLanes) s = add_rn(s, item(i));
    lanes[tid] = s;
  }
  __syncthreads();
  for (int offset = kCoarseLanes / 2; offset > 0; offset /= 2) {
    if (tid < offset) lanes[tid] = add_rn(lanes[tid], lanes[tid + offset]);
    __syncthreads();
  }
  const double total = lanes[0];
  __syncthreads();  // lanes may be reused at once
  return total;
}

// The same for three sums at once (one pass, one set of barriers); the totals into a, b, c.
template <class Item>
__device__ void block_ordered_sums3(int n, Item item, double (*lanes)[3], double& a, double& b, double& c) {
  const int tid = threadIdx.x;
  if (tid < kCoarseLanes) {
    double s[3] = {0.0, 0.0, 0.0};
    for (int i = tid; i < n; i += kCoarseLanes) {
      double v[3];
      item(i, v);
      for (int k = 0; k < 3; ++k) s[k] = add_rn(s[k], v[k]);
    }
    for (int k = 0; k < 3; ++k) lanes[tid][k] = s[k];
  }
  __syncthreads();
  for (int offset = kCoarseLanes / 2; offset > 0; offset /= 2) {
    if (tid < offset)
      for (int k = 0; k < 3; ++k) lanes[tid][k] = add_rn(lanes[tid][k], lanes[tid + offset][k]);
    __syncthreads();
  }
  a = lanes[0][0];
  b = lanes[0][1];
  c = lanes[0][2];
  __syncthreads();
}

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

// ---- projections and block sums -----------------------------------------------------------
__global__ void projectionPartialsKernel(GreyView frame, CoarseGeometry g, float* column_partials,
                                         float* row_partials, float* block_sums) {
  constexpr int T = kProjectionTile;
  __shared__ float tile[T][T + 1];  // odd pitch: the row sums read down a column without conflicts
  __shared__ float block_rows[T][T];  // per tile row, the sums of its blocks' parts
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
  // The whole blocks of the coarse image inside this tile: row sums, then their sums (as the CPU).
  const int b = g.block;
  const int bx0 = x0 / b, by0 = y0 / b;
  const int nbx = min(tw / b, g.blocks_x - bx0), nby = min(th / b, g.blocks_y - by0);
  if (nbx <= 0 || nby <= 0) return;
  for (int item = threadIdx.x; item < nby * b * nbx; item += blockDim.x) {
    const int row = item / nbx, block = item % nbx;
    block_rows[row][block] = block_row_sum(t, row, block * b, b);
  }
  __syncthreads();
  for (int item = threadIdx.x; item < nbx * nby; item += blockDim.x) {
    const int bx = item % nbx, by = item / nbx;
    block_sums[static_cast<std::size_t>(by0 + by) * g.blocks_x + bx0 + bx] =
        block_sum_of_rows(&block_rows[by * b][bx], b, T);
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

// ---- the coarse image (one block) ---------------------------------------------------------
// Everything in shared memory (the means, the values, both summed-area tables: up to 135 KB, the
// dynamic allocation), written out at the end: the high-pass and the tables' running sums are
// chains of dependent reads, which global memory's latency would make slow.
std::size_t prepare_shared_bytes(const CoarseGeometry& g) {
  return sizeof(double) * (2 * static_cast<std::size_t>(g.pixels()) + 2 * (g.width + 1) * (g.height + 1) + kCoarseLanes);
}

__global__ void __launch_bounds__(kPrepareThreads)
    coarsePrepareKernel(const float* block_sums, CoarseGeometry g, double* coarse, SequenceState* state) {
  extern __shared__ double shared[];
  const int tid = threadIdx.x, n = g.pixels(), w = g.width, h = g.height, table = (w + 1) * (h + 1);
  double* means = shared;
  double* v = means + n;
  double* sat = v + n;
  double* sat2 = sat + table;
  double* lanes = sat2 + table;
  if (tid == 0) begin_frame(*state);
  for (int i = tid; i < n; i += blockDim.x) means[i] = coarse_mean(block_sums, g, i % w, i / w);
  __syncthreads();
  for (int i = tid; i < n; i += blockDim.x) v[i] = coarse_high_pass(means, w, h, i % w, i / w);
  __syncthreads();
  // prepare_coarse (core/src/sequence_cpu.cpp), step by step, with the same sums.
  const double m0 = block_ordered_sum(n, [&](int i) { return v[i]; }, lanes) / n;
  for (int i = tid; i < n; i += blockDim.x) v[i] -= m0;
  __syncthreads();
  double rms = sqrt(block_ordered_sum(n, [&](int i) { return mul_rn(v[i], v[i]); }, lanes) / n);
  for (int round = 0; round < kCoarseClipRounds; ++round) {
    for (int i = tid; i < n; i += blockDim.x) v[i] = clip(v[i], mul_rn(kCoarseClip, rms));
    __syncthreads();
    const double m = block_ordered_sum(n, [&](int i) { return v[i]; }, lanes) / n;
    for (int i = tid; i < n; i += blockDim.x) v[i] -= m;
    __syncthreads();
    rms = sqrt(block_ordered_sum(n, [&](int i) { return mul_rn(v[i], v[i]); }, lanes) / n);
  }
  for (int i = tid; i < n; i += blockDim.x) v[i] = clip(v[i], mul_rn(kCoarseClip, rms));
  for (int x = tid; x <= w; x += blockDim.x) sat[x] = sat2[x] = 0.0;
  __syncthreads();
  for (int y = tid; y < h; y += blockDim.x) summed_area_row(v, w, y, sat, sat2);
  __syncthreads();
  for (int x = tid; x <= w; x += blockDim.x) summed_area_column(w, h, x, sat, sat2);
  __syncthreads();
  for (int i = tid; i < n; i += blockDim.x) coarse[i] = v[i];
  for (int i = tid; i < 2 * table; i += blockDim.x) coarse[n + i] = sat[i];  // sat2 follows sat, as in coarse_view
}

// ---- scores of the lags ---------------------------------------------------------------------
// A block holds the frame's and the reference's coarse values in shared memory (64 KB at most, the
// dynamic allocation) and its warps take lags in turn, one lag a warp; blockIdx.y 0 scores
// against the reference, 1 against the previous frame (only when it did not match: a cut is
// possible).
constexpr int kScoreBlocks = 264;

__global__ void __launch_bounds__(kScoreWarps * 32)
    coarseScoresKernel(const double* coarse, const double* reference, const double* previous, CoarseGeometry g,
                       const SequenceState* state, double* scores) {
  if (blockIdx.y == 1 && !state->previous_failed) return;
  extern __shared__ double shared[];
  const int n = g.pixels();
  double* f = shared;
  double* r = shared + n;
  const double* other = blockIdx.y == 0 ? reference : previous;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    f[i] = coarse[i];
    r[i] = other[i];
  }
  __syncthreads();
  const CoarseImage fi = coarse_view(coarse, g), ri = coarse_view(other, g);  // the tables stay in global memory
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int i = blockIdx.x * kScoreWarps + warp; i < g.lag_count(); i += gridDim.x * kScoreWarps) {
    int lx = 0, ly = 0;
    lag_of(g, i, lx, ly);
    double v = coarse_product_lane(f, r, g.width, g.height, lx, ly, lane);
    for (int o = kMismatchLanes / 2; o > 0; o /= 2) v = add_rn(v, __shfl_down_sync(0xffffffffu, v, o));
    if (lane == 0) scores[blockIdx.y * g.lag_count() + i] = coarse_score_from(v, fi, ri, g.width, g.height, lx, ly);
  }
}

// ---- the coarse decision and the integer search (one block) --------------------------------
struct BestLag {
  double score;
  int index;
};

// The best lag of the scores (coarse_better: a strict order, so the reduction's order is free)
// and the statistics of the others: best_coarse_match (core/src/sequence_cpu.cpp) for the block.
__device__ CoarseMatch block_coarse_match(const double* scores, const CoarseGeometry& g, BestLag* warp_best,
                                          double (*lanes)[3]) {
  const int n = g.lag_count(), tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  BestLag best{scores[0], 0};
  for (int i = tid; i < n; i += blockDim.x)
    if (coarse_better(scores[i], i, best.score, best.index, g)) best = {scores[i], i};
  for (int o = 16; o > 0; o /= 2) {
    const BestLag other{__shfl_down_sync(0xffffffffu, best.score, o), __shfl_down_sync(0xffffffffu, best.index, o)};
    if (coarse_better(other.score, other.index, best.score, best.index, g)) best = other;
  }
  if (lane == 0) warp_best[warp] = best;
  __syncthreads();
  if (tid == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w)
      if (coarse_better(warp_best[w].score, warp_best[w].index, warp_best[0].score, warp_best[0].index, g))
        warp_best[0] = warp_best[w];
  }
  __syncthreads();
  const int peak = warp_best[0].index;
  __syncthreads();
  double others = 0.0, sum = 0.0, sum2 = 0.0;
  block_ordered_sums3(
      n,
      [&](int i, double* v) {
        const bool near = near_peak(g, i, peak);
        const double z = scores[i];
        v[0] = near ? 0.0 : 1.0;
        v[1] = near ? 0.0 : z;
        v[2] = near ? 0.0 : mul_rn(z, z);
      },
      lanes, others, sum, sum2);
  return coarse_match_from(scores, g, peak, others, sum, sum2);
}

__global__ void __launch_bounds__(kSearchThreads)
    integerSearchKernel(const double* scores, CoarseGeometry g, const double* columns, const double* rows, int width,
                        int height, FrameSettings settings, double* profiles, const double* previous_profiles,
                        double* reference_profiles, const double* previous_coarse, double* reference_coarse,
                        ShiftRecord* records, int previous_slot, SequenceState* state) {
  __shared__ BestLag warp_best[kSearchThreads / 32];
  __shared__ double lanes[kCoarseLanes][3];
  __shared__ double mismatch[2 * (2 * kMaxRefineRadius + 1)];
  __shared__ int centre[2], cut;
  const int tid = threadIdx.x;
  const CoarseMatch against_reference = block_coarse_match(scores, g, warp_best, lanes);
  const bool previous_scored = state->previous_failed != 0;
  CoarseMatch against_previous;
  if (previous_scored) against_previous = block_coarse_match(scores + g.lag_count(), g, warp_best, lanes);
  if (tid == 0) {
    const CoarseMatch m = decide_match(*state, against_reference, against_previous, previous_scored, settings.min_match);
    if (state->cut) begin_segment(*state, records[previous_slot], previous_slot);
    centre[0] = m.centre_x;
    centre[1] = m.centre_y;
    cut = state->cut;
  }
  __syncthreads();
  // On a cut the previous frame is the new reference: its profiles and coarse image become the reference's.
  if (cut) {
    for (int i = tid; i < width + height; i += blockDim.x) reference_profiles[i] = previous_profiles[i];
    for (int i = tid; i < coarse_image_doubles(g); i += blockDim.x) reference_coarse[i] = previous_coarse[i];
  }
  // The frame's high-passed profiles, kept in its ring slot.
  double* hp_columns = profiles;
  double* hp_rows = profiles + width;
  for (int i = tid; i < width + height; i += blockDim.x) {
    if (i < width) hp_columns[i] = high_pass(columns, width, i);
    else hp_rows[i - width] = high_pass(rows, height, i - width);
  }
  __syncthreads();  // the block's global writes are visible to the block after the barrier
  const double* ref_columns = reference_profiles;
  const double* ref_rows = reference_profiles + width;
  const int radius = refine_radius(settings.search_radius, g);
  const LagWindow wx = lag_window(width, centre[0], radius), wy = lag_window(height, centre[1], radius);
  const int lags_x = wx.hi - wx.lo + 1, items = lags_x + (wy.hi - wy.lo + 1);
  const int lane = tid % 32, warp = tid / 32;
  for (int item = warp; item < items; item += kSearchThreads / 32) {
    const bool along_x = item < lags_x;
    const int lag = along_x ? wx.lo + item : wy.lo + (item - lags_x);
    const int n = along_x ? width : height;
    const double* pf = along_x ? hp_columns : hp_rows;
    const double* pr = along_x ? ref_columns : ref_rows;
    double v = mismatch_lane(pf, pr, n, lag, lane);
    for (int o = kMismatchLanes / 2; o > 0; o /= 2) v = add_rn(v, __shfl_down_sync(0xffffffffu, v, o));
    if (lane == 0) mismatch[item] = mismatch_mean(v, n, lag);
  }
  __syncthreads();
  if (tid == 0) {
    int best_x = wx.lo, best_y = wy.lo;
    for (int lag = wx.lo + 1; lag <= wx.hi; ++lag)
      if (lag_better(mismatch[lag - wx.lo], lag, mismatch[best_x - wx.lo], best_x)) best_x = lag;
    for (int lag = wy.lo + 1; lag <= wy.hi; ++lag)
      if (lag_better(mismatch[lags_x + lag - wy.lo], lag, mismatch[lags_x + best_y - wy.lo], best_y)) best_y = lag;
    state->offset_x = best_x;
    state->offset_y = best_y;
    if ((wx.hi > wx.lo && (best_x == wx.lo || best_x == wx.hi)) || (wy.hi > wy.lo && (best_y == wy.lo || best_y == wy.hi)))
      state->flags |= kFlagRefineEdge;
  }
}

// ---- reference local mean -------------------------------------------------------------------
__global__ void localMeanKernel(GreyView src, float* dst, std::ptrdiff_t dst_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < src.width && y < src.height) dst[y * dst_stride + x] = local_mean(src, x, y);
}

// Grid-stride, so that the frames without a cut (nearly all) cost only a few idle blocks.
__global__ void cutReferenceMeanKernel(GreyView src, float* dst, std::ptrdiff_t dst_stride, const SequenceState* state) {
  if (!state->cut) return;
  const long long n = static_cast<long long>(src.width) * src.height;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(i % src.width), y = static_cast<int>(i / src.width);
    dst[y * dst_stride + x] = local_mean(src, x, y);
  }
}

__global__ void candidateProfilesKernel(const double* columns, const double* rows, int width, int height,
                                        double* profiles, double* reference_profiles) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = 0.0;
  if (i < width) v = high_pass(columns, width, i);
  else if (i < width + height) v = high_pass(rows, height, i - width);
  else return;
  profiles[i] = v;
  reference_profiles[i] = v;
}

// ---- fine sums ------------------------------------------------------------------------------
__global__ void __launch_bounds__(kFineThreads)
    fineSumsKernel(GreyView reference_mean, GreyView frame, const SequenceState* state, double* partials) {
  __shared__ double warp_totals[kFineThreads / 32][kSumCount];
  const int kx = state ? state->offset_x : 0, ky = state ? state->offset_y : 0;
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

// ---- solve: shift, verdict, weights (one block) ---------------------------------------------
struct WeightScratch {
  HistoryShift shifts[kMaxHistory];
  double gram[kMaxMoments * kMaxMoments];
  double lambda[kMaxMoments];
  double raw[kMaxHistory];
  double monomials[kMaxHistory][kMaxMoments];
  double total;
  int solved;
};

// compute_weights (sequence_maths.hpp) with its loops spread over the threads. Each history
// frame's monomials are computed once (one thread per frame); the Gram entries, the right-hand
// side and the raw weights then sum them in compute_weights' order, with the same operations, so
// the weights are the CPU's bit for bit. `current` and the records are read by every thread.
__device__ void block_weights(const ShiftRecord& current, const ShiftRecord* records, const int* slots, int n,
                              int degree, double gamma, int width, int height, WeightScratch& s,
                              WhiteningWeights* out) {
  const int tid = threadIdx.x, m = moment_count(degree);
  if (tid < n) {
    const HistoryShift h = history_shift(records[slots[tid]], current);
    s.shifts[tid] = h;
    for (int e = 0; e < m; ++e) s.monomials[tid][e] = monomial(h.ex, h.ey, e);
  }
  __syncthreads();
  if (tid == 0) weight_offsets(s.shifts, n, width, height, *out);  // offsets, used, region; c = 0, skip = 1
  for (int e = tid; e < m * m; e += blockDim.x) {
    const int i = e / m, j = e % m;
    double sum = i == j ? gamma : 0.0;
    for (int k = 0; k < n; ++k)
      if (s.shifts[k].used) sum += s.monomials[k][i] * s.monomials[k][j];
    s.gram[e] = sum;
  }
  for (int i = tid; i < m; i += blockDim.x) {
    double sum = 0.0;
    for (int k = 0; k < n; ++k)
      if (s.shifts[k].used) sum += s.monomials[k][i];
    s.lambda[i] = sum;
  }
  __syncthreads();
  if (tid == 0) s.solved = m == 0 || cholesky_solve(s.gram, s.lambda, m);
  __syncthreads();
  if (tid < n) {
    double q = 0.0;  // raw_weight's polynomial
    if (s.solved && s.shifts[tid].used) {
      q = 1.0;
      for (int e = 0; e < m; ++e) q -= s.lambda[e] * s.monomials[tid][e];
    }
    s.raw[tid] = q;
  }
  __syncthreads();
  if (tid == 0) {
    double total = 0.0;
    for (int j = 0; j < n; ++j) total += s.raw[j];
    const bool ok = out->used_count > 0 && s.solved && total > 0.0;
    out->skip = ok ? 0 : 1;
    s.total = ok ? total : 0.0;
  }
  __syncthreads();
  if (tid < n && s.total > 0.0) out->c[tid] = static_cast<float>(s.raw[tid] / s.total);  // every weight at once
  __syncthreads();
}

__global__ void __launch_bounds__(kSolveThreads)
    solveKernel(const double* partials, int blocks, int width, int height, int candidate, FrameSettings settings,
                ShiftRecord* records, int current_slot, HistoryArgs history, HistoryArgs span,
                const double* coarse, double* reference_coarse, int coarse_doubles, SequenceState* state,
                WhiteningWeights* weights_out, WhiteningWeights* backward_out) {
  __shared__ double warp_totals[kSolveThreads / 32][kSumCount];
  __shared__ double sums[kSumCount];
  __shared__ ShiftRecord current, reference;
  __shared__ WeightScratch scratch;
  __shared__ int became_reference, backward_position;
  const int tid = threadIdx.x;

  // 1. The fine kernel's partial sums, block by block in a fixed order.
  double acc[kSumCount] = {};
  for (int b = tid; b < blocks; b += blockDim.x)
    for (int k = 0; k < kSumCount; ++k) acc[k] += partials[static_cast<std::size_t>(b) * kSumCount + k];
  reduce_sums<kSolveThreads>(acc, warp_totals);
  if (tid < kSumCount) sums[tid] = acc[tid];
  __syncthreads();

  // 2. The shift and its verdict (the CPU engine's try_reference / estimate_shift).
  if (tid == 0) {
    const int kx = candidate ? 0 : state->offset_x, ky = candidate ? 0 : state->offset_y;
    ShiftSums s;
    for (int k = 0; k < kSumCount; ++k) s.s[k] = sums[k];
    ShiftRecord r = solve_shift(s, fine_region(width, height, kx, ky).count(), kx, ky);
    became_reference = 0;
    if (candidate) {
      r.frame = state->next_frame;
      if (r.status == static_cast<int>(ShiftStatus::Estimated)) {
        begin_segment(*state, r, current_slot);
        became_reference = 1;
      }
    } else {
      shift_verdict(*state, r);
    }
    records[current_slot] = r;
    current = r;
    // The backward job: the early frame due, d frames back (position d of the span).
    backward_position = -1;
    const int target = shift_usable(r) ? backward_target(*state, r.frame, settings.history) : -1;
    const int d = r.frame - target;
    if (settings.target_threshold > 0.0 && target >= 0 && d > 0 && d < span.count) {
      const ShiftRecord& early = records[span.slots[d]];
      if (early.frame == target && shift_usable(early) && early.segment == state->segment) {
        backward_position = d;
        reference = early;
      }
    }
  }
  __syncthreads();
  if (became_reference)
    for (int i = tid; i < coarse_doubles; i += blockDim.x) reference_coarse[i] = coarse[i];

  // 3. The weights of the current frame, then (when due) the backward job's.
  block_weights(current, records, history.slots, history.count, settings.degree, settings.gamma, width, height, scratch,
                weights_out);
  if (tid == 0) weights_out->source = -1;
  if (backward_position > 0) {
    block_weights(reference, records, span.slots, backward_position, settings.degree, settings.gamma, width, height,
                  scratch, backward_out);
    if (tid == 0) backward_out->source = backward_position;
  } else if (tid == 0) {
    backward_out->skip = 1;
    backward_out->count = 0;
    backward_out->source = -1;
  }
}

// ---- correlation weights ----------------------------------------------------------------------
// D's partial sums: blocks take chunks of kGramChunk sampled pixels of the stats region; the
// prediction errors of a chunk go to shared memory; each thread adds the products of a 4 × 4 tile
// of D over its share of the chunk's pixels (float within the chunk, double across chunks); the
// threads of a tile are then added in order. Per block, `stride` doubles: the triangle, then the
// pixel count.
__global__ void __launch_bounds__(kGramThreads)
    gramKernel(GreyView current, HistoryArgs history, const WhiteningWeights* weights, double* partials, int stride) {
  __shared__ double scratch[kGramThreads * 16];  // the chunk's errors, then the tiles' sums
  __shared__ int valid[kGramChunk];
  __shared__ int used[kMaxHistory];
  __shared__ int n_used;
  static_assert(kGramChunk * (kMaxHistory + 1) * sizeof(float) <= sizeof(double) * kGramThreads * 16, "the chunk fits");
  float (*d)[kMaxHistory + 1] = reinterpret_cast<float (*)[kMaxHistory + 1]>(scratch);
  double (*tile_sums)[16] = reinterpret_cast<double (*)[16]>(scratch);
  const WhiteningWeights& w = *weights;
  const int tid = threadIdx.x;
  if (tid == 0) {
    int n = 0;
    for (int j = 0; j < w.count; ++j)
      if (w.used[j]) used[n++] = j;
    n_used = n;
  }
  __syncthreads();
  const int n = n_used;
  double* out = partials + static_cast<std::size_t>(blockIdx.x) * stride;
  if (w.used_count == 0 || n == 0) {
    for (int e = tid; e < stride; e += blockDim.x) out[e] = 0.0;
    return;
  }
  const Region region = stats_region(w, current.width, current.height);
  const int step = stats_row_step(current.width, current.height);
  const int rows = (region.y1 - region.y0 + step - 1) / step, row_width = region.x1 - region.x0;
  const int pixels = rows * row_width;  // at most about a million: stats_row_step
  const int tiles = (n + 3) / 4, tile_count = tiles * (tiles + 1) / 2;
  const int groups = kGramThreads / tile_count;  // ≥ 1: tile_count ≤ 136
  const int tile = tid % tile_count, group = tid / tile_count;
  int ti = 0, tj = 0;  // the tile (ti ≤ tj) of this thread
  for (int t = tile, row = 0; row < tiles; ++row) {
    if (t < tiles - row) {
      ti = row;
      tj = row + t;
      break;
    }
    t -= tiles - row;
  }
  double acc[16] = {};
  int counted = 0;
  for (int chunk = blockIdx.x * kGramChunk; chunk < pixels; chunk += gridDim.x * kGramChunk) {
    if (tid < kGramChunk) valid[tid] = chunk + tid < pixels;
    __syncthreads();
    for (int item = tid; item < kGramChunk * n; item += blockDim.x) {
      const int q = item / n, i = item - q * n, p = chunk + q;
      float value = 0.0f;
      if (p < pixels) {
        const int x = region.x0 + p % row_width, y = region.y0 + (p / row_width) * step;
        const int j = used[i];
        const int xs = x + w.kx[j], ys = y + w.ky[j];
        const bool inside = xs >= 0 && ys >= 0 && xs < current.width && ys < current.height;
        const float v = inside ? history.frames[j][static_cast<std::ptrdiff_t>(ys) * current.stride + xs] : 0.0f;
        if (inside && v == v) value = current.at(x, y) - v;
        else valid[q] = 0;  // outside its frame, or no value: the pixel is left out of D
      }
      d[q][i] = value;
    }
    __syncthreads();
    if (tid < kGramChunk) counted += valid[tid];
    if (group < groups) {
      float a[16] = {};
      for (int q = group; q < kGramChunk; q += groups) {
        if (!valid[q]) continue;
        float di[4], dj[4];
        for (int k = 0; k < 4; ++k) {
          di[k] = 4 * ti + k < n ? d[q][4 * ti + k] : 0.0f;
          dj[k] = 4 * tj + k < n ? d[q][4 * tj + k] : 0.0f;
        }
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 4; ++c) a[r * 4 + c] += di[r] * dj[c];
      }
      for (int k = 0; k < 16; ++k) acc[k] += a[k];
    }
    __syncthreads();
  }
  // The groups' sums of each tile, in group order, then into the triangle.
  for (int k = 0; k < 16; ++k) tile_sums[tid][k] = acc[k];
  __shared__ int counts[kGramChunk];
  if (tid < kGramChunk) counts[tid] = counted;
  __syncthreads();
  for (int e = tid; e < stride; e += blockDim.x) out[e] = 0.0;
  __syncthreads();
  if (tid < tile_count) {
    for (int k = 0; k < 16; ++k) {
      const int i = 4 * ti + k / 4, j = 4 * tj + k % 4;
      if (i >= n || j >= n || i > j) continue;
      double sum = 0.0;
      for (int gr = 0; gr < groups; ++gr) sum += tile_sums[gr * tile_count + tid][k];
      out[triangle_index(n, i, j)] = sum;
    }
  }
  if (tid == 0) {
    long long total = 0;
    for (int q = 0; q < kGramChunk; ++q) total += counts[q];
    out[stride - 1] = static_cast<double>(total);
  }
}

// One block: D from the partials (mean products), then correlation_weights with its Cholesky
// factorisation spread over the threads (column by column, the same operations as cholesky_solve).
__global__ void __launch_bounds__(kSolveThreads)
    correlationSolveKernel(const double* partials, int blocks, int stride, double gamma, WhiteningWeights* weights) {
  __shared__ double a[kMaxHistory * kMaxHistory];
  __shared__ double x[kMaxHistory];
  __shared__ int used[kMaxHistory];
  __shared__ int n_used, ok;
  __shared__ double pixels, ridge;
  const int tid = threadIdx.x;
  WhiteningWeights& w = *weights;
  if (tid == 0) {
    int n = 0;
    for (int j = 0; j < w.count; ++j)
      if (w.used[j]) used[n++] = j;
    n_used = n;
    double total = 0.0;
    for (int b = 0; b < blocks; ++b) total += partials[static_cast<std::size_t>(b) * stride + stride - 1];
    pixels = total;
    w.skip = 1;
  }
  __syncthreads();
  const int n = n_used;
  for (int j = tid; j < w.count; j += blockDim.x) w.c[j] = 0.0f;
  if (n == 0 || !(pixels > 0.0)) return;
  // D (mean products over the blocks, in block order) into a; both halves from the triangle.
  for (int e = tid; e < n * n; e += blockDim.x) {
    const int i = e / n, j = e % n;
    const int t = i <= j ? triangle_index(n, i, j) : triangle_index(n, j, i);
    double sum = 0.0;
    for (int b = 0; b < blocks; ++b) sum += partials[static_cast<std::size_t>(b) * stride + t];
    a[e] = sum / pixels;
  }
  __syncthreads();
  if (tid == 0) {
    double trace = 0.0;
    for (int i = 0; i < n; ++i) trace += a[i * n + i];
    ok = trace > 0.0;
    ridge = gamma * trace / n;
  }
  __syncthreads();
  if (!ok) return;
  for (int i = tid; i < n; i += blockDim.x) a[i * n + i] += ridge;
  __syncthreads();
  for (int j = 0; j < n; ++j) {
    if (tid == 0) {
      double d = a[j * n + j];
      for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
      if (!(d > 0.0)) ok = 0;
      a[j * n + j] = d > 0.0 ? sqrt(d) : 1.0;
    }
    __syncthreads();
    for (int i = j + 1 + tid; i < n; i += blockDim.x) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
    __syncthreads();
  }
  if (tid == 0 && ok) {
    for (int i = 0; i < n; ++i) {  // L·y = 1
      double s = 1.0;
      for (int k = 0; k < i; ++k) s -= a[i * n + k] * x[k];
      x[i] = s / a[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {  // Lᵀ·x = y
      double s = x[i];
      for (int k = i + 1; k < n; ++k) s -= a[k * n + i] * x[k];
      x[i] = s / a[i * n + i];
    }
    double total = 0.0;
    for (int i = 0; i < n; ++i) total += x[i];
    if (total > 0.0) {
      for (int i = 0; i < n; ++i) w.c[used[i]] = static_cast<float>(x[i] / total);
      w.skip = 0;
    }
  }
}

// ---- whitening ------------------------------------------------------------------------------
// One thread per column of kRowsPerThread rows (kThreadsY apart): every pixel reads the current
// frame and each history frame with a non-zero weight once (at its integer offset) and is written
// once. The rows' reads of one history frame are independent, so each thread keeps
// kRowsPerThread loads in flight; a warp reads 32 consecutive floats of a row. The sampled pixels'
// |w| go into the block's histogram (integer counts: their order does not matter), added to the
// frame's at the end.
__global__ void __launch_bounds__(WhitenPolicy::kThreadsX * WhitenPolicy::kThreadsY)
    whitenKernel(GreyView current, HistoryArgs history, const WhiteningWeights* weights, float* out,
                 std::ptrdiff_t out_stride, ResidualStats* stats, int job) {
  __shared__ WhiteningWeights w;
  __shared__ unsigned histogram[kResidualBins];
  const int threads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = tid; i < static_cast<int>(sizeof(WhiteningWeights) / sizeof(int)); i += threads)
    reinterpret_cast<int*>(&w)[i] = reinterpret_cast<const int*>(weights)[i];
  for (int b = tid; b < kResidualBins; b += threads) histogram[b] = 0;
  __syncthreads();
  if (w.skip && job == 1) return;  // the backward job, not due in this frame
  if (w.source >= 0) current.data = history.frames[w.source];
  const int x = blockIdx.x * WhitenPolicy::kThreadsX + threadIdx.x;
  const int y0 = blockIdx.y * WhitenPolicy::kThreadsY * WhitenPolicy::kRowsPerThread + threadIdx.y;
  if (x < current.width) {
    float values[WhitenPolicy::kRowsPerThread];
    if (w.skip) {
      for (float& v : values) v = 0.0f;
    } else {
      whiten_rows<float, WhitenPolicy::kRowsPerThread>(current, history.frames, w, x, y0, WhitenPolicy::kThreadsY,
                                                       values);
    }
    const Region region = stats_region(w, current.width, current.height);
    const int step = stats_row_step(current.width, current.height);
#pragma unroll
    for (int r = 0; r < WhitenPolicy::kRowsPerThread; ++r) {
      const int y = y0 + r * WhitenPolicy::kThreadsY;
      if (y < current.height) out[y * out_stride + x] = values[r];
      // The lanes that fall into the same bin add to it once (a warp's values crowd a few bins).
      const int bin = !w.skip && y < current.height && stats_pixel(region, step, x, y) ? residual_bin(values[r]) : -1;
      const unsigned peers = __match_any_sync(__activemask(), bin);
      if (bin >= 0 && (threadIdx.x % 32) == __ffs(peers) - 1) atomicAdd(&histogram[bin], __popc(peers));
    }
  }
  __syncthreads();
  if (w.skip) return;
  for (int b = tid; b < kResidualBins; b += threads)
    if (histogram[b]) atomicAdd(&stats->histogram[b], histogram[b]);
}

// ---- the residual's verdict (one block) -----------------------------------------------------
__global__ void __launch_bounds__(kVerdictThreads)
    residualVerdictKernel(const WhiteningWeights* weights, const WhiteningWeights* backward_weights,
                          ResidualStats* stats, ResidualStats* backward_stats, FrameSettings settings,
                          ShiftRecord* records, int current_slot, SequenceState* state, FrameResult* result) {
  // The histograms to shared memory first (their counts from the bins: the whitening does not
  // count): thread 0's serial walks then read shared memory, not global memory's latency.
  __shared__ ResidualStats local[2];
  const int tid = threadIdx.x;
  for (int b = tid; b < kResidualBins; b += blockDim.x) {
    local[0].histogram[b] = stats->histogram[b];
    local[1].histogram[b] = backward_stats->histogram[b];
  }
  __syncthreads();
  if (tid < 2) {
    unsigned long long count = 0;
    for (int b = 0; b < kResidualBins; ++b) count += local[tid].histogram[b];
    local[tid].count = count;
  }
  __syncthreads();
  if (tid == 0) {
    SequenceState& s = *state;
    ShiftRecord r = records[current_slot];
    const bool whitened = !weights->skip;
    double residual = 0.0;
    if (whitened) {
      residual = residual_deviation(local[0]);
      if (r.status == static_cast<int>(ShiftStatus::Estimated))
        residual_verdict(s, r, residual, residual_tail(local[0], residual), settings.max_residual);
    }
    const double k = settings.target_threshold;
    if (k > 0.0 && residual > 0.0 && r.status == static_cast<int>(ShiftStatus::Estimated) &&
        cleaned_as_it_comes(r, s.segment_start, settings.history))
      s.removal_threshold = static_cast<float>(k * residual);
    s.median = median_replacement(r.frame, s.segment_start, settings.history) ? 1 : 0;
    if (k > 0.0 && !backward_weights->skip) {
      const double reference_residual = residual_deviation(local[1]);
      if (reference_residual > 0.0) s.backward_threshold = static_cast<float>(k * reference_residual);
    }
    s.keep = whitened_output(r, s.segment_start, settings.history, whitened) ? 1 : 0;
    records[current_slot] = r;
    end_frame(s, r);
    if (result) {
      result->shift = r;
      result->skip = whitened ? 0 : 1;
      result->whitened = s.keep;
    }
  }
  for (int b = tid; b < kResidualBins; b += blockDim.x) stats->histogram[b] = backward_stats->histogram[b] = 0;
}

// ---- target removal -------------------------------------------------------------------------
// First the cores of both jobs, from the frames as they are, into byte maps, with a flag per block
// (cores are rare: most blocks have none); then the replacements, reading the maps: no read sees a
// replaced pixel, whatever the blocks' order. A block replaces only when it or a neighbour block
// has a core (kMaskGrowth is less than a block). The cores' test reads its 5×5 from tiles of the
// frame and the whitened values in shared memory; a block with no whitened value above the
// threshold skips the frame's tile.
constexpr int kCoreX = 32, kCoreY = 8;
constexpr int kCoreTileX = kCoreX + 2 * kReliefRadius, kCoreTileY = kCoreY + 2 * kReliefRadius;
static_assert(kMaskGrowth <= kCoreY && kMaskGrowth <= kCoreX, "a core's growth reaches the neighbour blocks only");

__device__ void block_cores(const float* frame, std::ptrdiff_t frame_stride, const float* whitened,
                            std::ptrdiff_t out_stride, int width, int height, float threshold, unsigned char* cores,
                            unsigned char* flags, float (&f)[kCoreTileY][kCoreTileX],
                            float (&w)[kCoreTileY][kCoreTileX]) {
  const int bx = blockIdx.x * kCoreX - kReliefRadius, by = blockIdx.y * kCoreY - kReliefRadius;
  const int x = blockIdx.x * kCoreX + threadIdx.x, y = blockIdx.y * kCoreY + threadIdx.y;
  const bool inside = x < width && y < height;
  const bool above = inside && whitened[y * out_stride + x] > threshold;
  unsigned char core = 0;
  if (__syncthreads_or(above)) {
    for (int i = threadIdx.y * kCoreX + threadIdx.x; i < kCoreTileX * kCoreTileY; i += kCoreX * kCoreY) {
      const int tx = i % kCoreTileX, ty = i / kCoreTileX;
      const int gx = min(max(bx + tx, 0), width - 1), gy = min(max(by + ty, 0), height - 1);  // clamped, as the CPU
      f[ty][tx] = frame[gy * frame_stride + gx];
      w[ty][tx] = whitened[gy * out_stride + gx];
    }
    __syncthreads();
    if (above) {
      // target_core's clamped reads land on the tile's clamped copies of the same pixels.
      auto tile_f = [&](int xx, int yy) { return f[yy - by][xx - bx]; };
      auto tile_w = [&](int xx, int yy) { return w[yy - by][xx - bx]; };
      core = target_core(tile_f, tile_w, width, height, x, y, threshold) ? 1 : 0;
    }
  }
  if (inside) cores[static_cast<std::size_t>(y) * width + x] = core;
  const int any = __syncthreads_or(core);
  if (threadIdx.x == 0 && threadIdx.y == 0) flags[blockIdx.y * gridDim.x + blockIdx.x] = any ? 1 : 0;
}

__global__ void __launch_bounds__(kCoreX * kCoreY)
    targetCoresKernel(const float* frame, std::ptrdiff_t frame_stride, const float* whitened, const float* backward,
                      std::ptrdiff_t out_stride, int width, int height, HistoryArgs span,
                      const WhiteningWeights* backward_weights, unsigned char* cores, unsigned char* flags,
                      const SequenceState* state) {
  __shared__ float f[kCoreTileY][kCoreTileX], w[kCoreTileY][kCoreTileX];
  const float t = state->removal_threshold, tb = state->backward_threshold;
  const std::size_t pixels = static_cast<std::size_t>(width) * height, blocks = gridDim.x * gridDim.y;
  if (t > 0.0f) block_cores(frame, frame_stride, whitened, out_stride, width, height, t, cores, flags, f, w);
  if (tb > 0.0f)
    block_cores(span.frames[backward_weights->source], frame_stride, backward, out_stride, width, height, tb,
                cores + pixels, flags + blocks, f, w);
}

__device__ void replace_pixel(float* frame, std::ptrdiff_t frame_stride, float v, const unsigned char* cores,
                              const HistoryArgs& history, const WhiteningWeights& weights, bool median, int width,
                              int height, int x, int y) {
  auto core = [&](int xx, int yy) { return cores[static_cast<std::size_t>(yy) * width + xx] != 0; };
  if (!(v > 0.0f) || !near_core(core, width, height, x, y)) return;
  float& p = frame[y * frame_stride + x];
  p = median ? median_prediction(history.frames, weights, width, height, frame_stride, x, y, p - v) : p - v;
}

// Whether this block or one of its neighbours has a core.
__device__ bool cores_near_block(const unsigned char* flags) {
  const int bx = blockIdx.x, by = blockIdx.y, nx = gridDim.x, ny = gridDim.y;
  bool any = false;
  for (int y = max(by - 1, 0); y <= min(by + 1, ny - 1); ++y)
    for (int x = max(bx - 1, 0); x <= min(bx + 1, nx - 1); ++x) any = any || flags[y * nx + x];
  return any;
}

// Job 0 replaces the frame's pixels (and zeroes the whitened frame when it is not kept), job 1
// the backward job's, after it (its median reads the frame as job 0 left it, as on the CPU). The
// grid is the cores kernel's.
__global__ void __launch_bounds__(kCoreX * kCoreY)
    replaceTargetsKernel(float* frame, std::ptrdiff_t frame_stride, float* whitened, const float* backward,
                         std::ptrdiff_t out_stride, int width, int height, HistoryArgs history,
                         const WhiteningWeights* weights, HistoryArgs span, const WhiteningWeights* backward_weights,
                         const unsigned char* cores, const unsigned char* flags, const SequenceState* state, int job) {
  const int x = blockIdx.x * kCoreX + threadIdx.x, y = blockIdx.y * kCoreY + threadIdx.y;
  const bool inside = x < width && y < height;
  const std::size_t pixels = static_cast<std::size_t>(width) * height, blocks = gridDim.x * gridDim.y;
  const std::ptrdiff_t o = y * out_stride + x;
  if (job == 0) {
    if (state->removal_threshold > 0.0f && inside && cores_near_block(flags))
      replace_pixel(frame, frame_stride, whitened[o], cores, history, *weights, state->median != 0, width, height, x,
                    y);
    if (!state->keep && inside) whitened[o] = 0.0f;
  } else if (state->backward_threshold > 0.0f && inside && cores_near_block(flags + blocks)) {
    replace_pixel(const_cast<float*>(span.frames[backward_weights->source]), frame_stride, backward[o], cores + pixels,
                  span, *backward_weights, true, width, height, x, y);
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
  const CoarseGeometry g = coarse_geometry(width, height);
  s.block_sums = g.blocks_x * g.blocks_y;
  const long long pixels = static_cast<long long>(width) * height;
  const long long blocks = (pixels + kFineThreads * kFinePixelsPerThread - 1) / (kFineThreads * kFinePixelsPerThread);
  s.fine_blocks = static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxFineBlocks ? kMaxFineBlocks : blocks));
  const long long sampled = pixels / stats_row_step(width, height);
  const long long gram = (sampled + 4 * kGramChunk - 1) / (4 * kGramChunk);  // about four chunks a block
  s.gram_blocks = static_cast<int>(gram < 1 ? 1 : (gram > kMaxGramBlocks ? kMaxGramBlocks : gram));
  return s;
}

void launch_projection_partials(const GreyView& frame, const CoarseGeometry& g, float* d_column_partials,
                                float* d_row_partials, float* d_block_sums, cudaStream_t stream) {
  const dim3 grid(blocks_for(frame.width, kProjectionTile), blocks_for(frame.height, kProjectionTile));
  projectionPartialsKernel<<<grid, kProjectionThreads, 0, stream>>>(frame, g, d_column_partials, d_row_partials,
                                                                      d_block_sums);
  GAUSSLAB_CUDA_CHECK_LAUNCH("projectionPartialsKernel", stream);
}

void launch_profiles(const float* d_column_partials, const float* d_row_partials, int width, int height,
                     double* d_columns, double* d_rows, cudaStream_t stream) {
  profilesKernel<<<blocks_for(width + height, 256), 256, 0, stream>>>(d_column_partials, d_row_partials, width,
                                                                        height, d_columns, d_rows);
  GAUSSLAB_CUDA_CHECK_LAUNCH("profilesKernel", stream);
}

// The dynamic shared memory a kernel may take beyond the default 48 KB (set once per process).
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

void launch_coarse_prepare(const float* d_block_sums, const CoarseGeometry& g, double* d_coarse, SequenceState* state,
                           cudaStream_t stream) {
  // The most any geometry takes: a coarse image of kCoarsePixels in one row (its tables are longest).
  constexpr std::size_t kMost = sizeof(double) * (2 * kCoarsePixels + 2 * (2 * kCoarsePixels + 2) + kCoarseLanes);
  static const bool allowed = (allow_shared(coarsePrepareKernel, kMost), true);
  (void)allowed;
  const std::size_t bytes = prepare_shared_bytes(g);
  coarsePrepareKernel<<<1, kPrepareThreads, bytes, stream>>>(d_block_sums, g, d_coarse, state);
  GAUSSLAB_CUDA_CHECK_LAUNCH("coarsePrepareKernel", stream);
}

void launch_coarse_scores(const double* d_coarse, const double* d_reference_coarse, const double* d_previous_coarse,
                          const CoarseGeometry& g, const SequenceState* state, double* d_scores, cudaStream_t stream) {
  static const bool allowed = (allow_shared(coarseScoresKernel, 2 * sizeof(double) * kCoarsePixels), true);
  (void)allowed;
  const dim3 grid(std::min<unsigned>(blocks_for(g.lag_count(), kScoreWarps), kScoreBlocks), 2);
  coarseScoresKernel<<<grid, kScoreWarps * 32, 2 * sizeof(double) * g.pixels(), stream>>>(
      d_coarse, d_reference_coarse, d_previous_coarse, g, state, d_scores);
  GAUSSLAB_CUDA_CHECK_LAUNCH("coarseScoresKernel", stream);
}

void launch_integer_search(const double* d_scores, const CoarseGeometry& g, const double* d_columns,
                           const double* d_rows, int width, int height, const FrameSettings& settings,
                           double* d_profiles, const double* d_previous_profiles, double* d_reference_profiles,
                           const double* d_previous_coarse, double* d_reference_coarse, ShiftRecord* d_records,
                           int previous_slot, SequenceState* state, cudaStream_t stream) {
  integerSearchKernel<<<1, kSearchThreads, 0, stream>>>(d_scores, g, d_columns, d_rows, width, height, settings,
                                                        d_profiles, d_previous_profiles, d_reference_profiles,
                                                        d_previous_coarse, d_reference_coarse, d_records,
                                                        previous_slot, state);
  GAUSSLAB_CUDA_CHECK_LAUNCH("integerSearchKernel", stream);
}

void launch_cut_reference_mean(const GreyView& previous, float* d_reference_mean, std::ptrdiff_t stride,
                               const SequenceState* state, cudaStream_t stream) {
  cutReferenceMeanKernel<<<kCutMeanBlocks, 256, 0, stream>>>(previous, d_reference_mean, stride, state);
  GAUSSLAB_CUDA_CHECK_LAUNCH("cutReferenceMeanKernel", stream);
}

void launch_local_mean(const GreyView& src, float* d_dst, std::ptrdiff_t dst_stride, cudaStream_t stream) {
  const dim3 block(32, 8), grid(blocks_for(src.width, 32), blocks_for(src.height, 8));
  localMeanKernel<<<grid, block, 0, stream>>>(src, d_dst, dst_stride);
  GAUSSLAB_CUDA_CHECK_LAUNCH("localMeanKernel", stream);
}

void launch_candidate_profiles(const double* d_columns, const double* d_rows, int width, int height,
                               double* d_profiles, double* d_reference_profiles, cudaStream_t stream) {
  candidateProfilesKernel<<<blocks_for(width + height, 256), 256, 0, stream>>>(d_columns, d_rows, width, height,
                                                                                 d_profiles, d_reference_profiles);
  GAUSSLAB_CUDA_CHECK_LAUNCH("candidateProfilesKernel", stream);
}

void launch_fine_sums(const GreyView& reference_mean, const GreyView& frame, const SequenceState* state,
                      double* d_partials, int blocks, cudaStream_t stream) {
  fineSumsKernel<<<blocks, kFineThreads, 0, stream>>>(reference_mean, frame, state, d_partials);
  GAUSSLAB_CUDA_CHECK_LAUNCH("fineSumsKernel", stream);
}

void launch_solve(const double* d_partials, int blocks, int width, int height, bool candidate,
                  const FrameSettings& settings, ShiftRecord* d_records, int current_slot, const HistoryArgs& history,
                  const HistoryArgs& span, const double* d_coarse, double* d_reference_coarse, int coarse_doubles,
                  SequenceState* state, WhiteningWeights* d_weights, WhiteningWeights* d_backward_weights,
                  cudaStream_t stream) {
  solveKernel<<<1, kSolveThreads, 0, stream>>>(d_partials, blocks, width, height, candidate ? 1 : 0, settings,
                                               d_records, current_slot, history, span, d_coarse,
                                               d_reference_coarse, coarse_doubles, state, d_weights,
                                               d_backward_weights);
  GAUSSLAB_CUDA_CHECK_LAUNCH("solveKernel", stream);
}

void launch_correlation_weights(const GreyView& current, const HistoryArgs& history, double gamma,
                                WhiteningWeights* d_weights, double* d_gram_partials, int gram_blocks,
                                cudaStream_t stream) {
  const int stride = gram_partial_stride(history.count);
  gramKernel<<<gram_blocks, kGramThreads, 0, stream>>>(current, history, d_weights, d_gram_partials, stride);
  GAUSSLAB_CUDA_CHECK_LAUNCH("gramKernel", stream);
  correlationSolveKernel<<<1, kSolveThreads, 0, stream>>>(d_gram_partials, gram_blocks, stride, gamma, d_weights);
  GAUSSLAB_CUDA_CHECK_LAUNCH("correlationSolveKernel", stream);
}

void launch_whiten(const GreyView& current, const HistoryArgs& history, const WhiteningWeights* d_weights, float* d_out,
                   std::ptrdiff_t out_stride, ResidualStats* d_stats, bool backward, cudaStream_t stream) {
  using P = WhitenPolicy;
  const dim3 block(P::kThreadsX, P::kThreadsY);
  const dim3 grid(blocks_for(current.width, P::kThreadsX), blocks_for(current.height, P::kThreadsY * P::kRowsPerThread));
  whitenKernel<<<grid, block, 0, stream>>>(current, history, d_weights, d_out, out_stride, d_stats, backward ? 1 : 0);
  GAUSSLAB_CUDA_CHECK_LAUNCH("whitenKernel", stream);
}

void launch_residual_verdict(const WhiteningWeights* d_weights, const WhiteningWeights* d_backward_weights,
                             ResidualStats* d_stats, ResidualStats* d_backward_stats, const FrameSettings& settings,
                             ShiftRecord* d_records, int current_slot, SequenceState* state, FrameResult* d_result,
                             cudaStream_t stream) {
  residualVerdictKernel<<<1, kVerdictThreads, 0, stream>>>(d_weights, d_backward_weights, d_stats, d_backward_stats,
                                                           settings, d_records, current_slot, state, d_result);
  GAUSSLAB_CUDA_CHECK_LAUNCH("residualVerdictKernel", stream);
}

void launch_target_removal(const GreyView& current, float* d_whitened, const float* d_backward,
                           std::ptrdiff_t out_stride, const HistoryArgs& history, const WhiteningWeights* d_weights,
                           const HistoryArgs& span, const WhiteningWeights* d_backward_weights, unsigned char* d_cores,
                           const SequenceState* state, bool backward_possible, cudaStream_t stream) {
  float* frame = const_cast<float*>(current.data);
  const dim3 block(kCoreX, kCoreY), grid(blocks_for(current.width, kCoreX), blocks_for(current.height, kCoreY));
  unsigned char* flags = d_cores + 2 * static_cast<std::size_t>(current.width) * current.height;
  targetCoresKernel<<<grid, block, 0, stream>>>(frame, current.stride, d_whitened, d_backward, out_stride,
                                                current.width, current.height, span, d_backward_weights, d_cores, flags,
                                                state);
  GAUSSLAB_CUDA_CHECK_LAUNCH("targetCoresKernel", stream);
  for (int job = 0; job < (backward_possible ? 2 : 1); ++job) {
    replaceTargetsKernel<<<grid, block, 0, stream>>>(frame, current.stride, d_whitened, d_backward, out_stride,
                                                     current.width, current.height, history, d_weights, span,
                                                     d_backward_weights, d_cores, flags, state, job);
    GAUSSLAB_CUDA_CHECK_LAUNCH("replaceTargetsKernel", stream);
  }
}

std::size_t target_removal_bytes(int width, int height) {
  const std::size_t blocks = blocks_for(width, kCoreX) * static_cast<std::size_t>(blocks_for(height, kCoreY));
  return 2 * (static_cast<std::size_t>(width) * height + blocks);
}

}  // namespace gausslab::seq
