// fft — Gaussian blur as a product in the frequency domain, with cuFFT.
//
// Algorithm: the convolution theorem on a padded image (the FFT convolution of NVIDIA's
// convolutionFFT2D sample), padded with the border extension rather than zeros, so that every
// border mode is exact, and multiplied by the spectrum of the sampled, truncated kernel rather than
// the analytic Gaussian's (they differ at small sigma). Per run: pad to a 7-smooth size of at least
// (W + 2r) × (H + 2r), one batched R2C over the channel planes, multiply by Kx(u)·Ky(v), C2R, crop.
// Plans are cached per padded size, spectra per (size, sigma); the padding and index maths are
// checked on the CPU (tests/cpu/methods/fft/test_fft.cpp).
// Cost: O(N log N) for N padded samples per channel, independent of sigma but for the padding.
// Limits: any size, radius and border; RGBA8 and F32 as they are, the other 8-bit, half and float
// formats of 1-4 channels as F32 planes (gpu_method.hpp; its float bound makes 16-bit images 7 levels,
// so they are left to the FIR methods); refused up front above an 8 GiB memory estimate; too little
// free device memory is a CudaOutOfMemory naming the sizes. A NaN or infinity anywhere in a float
// image spreads over the whole result.
// Accuracy: float32 FFT round-off; bound kFftBound (below; docs/methods/fft.md measures it).
// Measured (NVIDIA H100 80GB HBM3, gausslab-bench): 4096² F32 7×7 0.741 ms, 41×41 0.858 ms.
// The pipeline in detail, the error emulation and the measurements: docs/methods/fft.md.
#include <cufft.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fft_sizes.hpp"
#include "gausslab/core/gaussian_weights.hpp"
#include "gausslab/cuda/accuracy_promise.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/gpu_method.hpp"
#include "gausslab/cuda/kernel_common.cuh"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {
namespace {

using fft::FftLayout;

// ---- cuFFT errors ------------------------------------------------------------------------------

const char* cufft_result_name(cufftResult result) {
  switch (result) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of device memory)";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
  }
  return "unknown cufftResult";
}

// A failed cuFFT call; the message names the call, the cufftResult and the place. A CudaError (code
// cudaErrorUnknown: cuFFT has its own codes), so that callers catch one type for every GPU failure;
// cuFFT's out-of-memory becomes CudaOutOfMemory.
class CufftError : public CudaError {
 public:
  explicit CufftError(const std::string& message) : CudaError(cudaErrorUnknown, message) {}
};

std::string cufft_message(cufftResult result, const char* expression, const char* file, int line) {
  return std::string("fft: ") + expression + " failed: " + cufft_result_name(result) + " (code " +
         std::to_string(static_cast<int>(result)) + ") at " + file + ":" + std::to_string(line);
}

[[noreturn]] void cufft_throw(cufftResult result, const char* expression, const char* file, int line) {
  (void)cudaGetLastError();  // a failed allocation inside cuFFT must not be blamed on the next kernel
  if (result == CUFFT_ALLOC_FAILED)
    throw CudaOutOfMemory(cufft_message(result, expression, file, line) + "; " + describe_free_device_memory() +
                              "; lower sigma or the image size, or pick another method",
                          0);
  throw CufftError(cufft_message(result, expression, file, line));
}

void cufft_log(cufftResult result, const char* expression, const char* file, int line) {
  std::fprintf(stderr, "gausslab: %s\n", cufft_message(result, expression, file, line).c_str());
}

#define GAUSSLAB_CUFFT_CHECK(expr)                                               \
  do {                                                                           \
    const cufftResult gausslab_cufft_status_ = (expr);                           \
    if (gausslab_cufft_status_ != CUFFT_SUCCESS)                                 \
      cufft_throw(gausslab_cufft_status_, #expr, __FILE__, __LINE__);            \
  } while (0)

#define GAUSSLAB_CUFFT_LOG(expr)                                                 \
  do {                                                                           \
    const cufftResult gausslab_cufft_status_ = (expr);                           \
    if (gausslab_cufft_status_ != CUFFT_SUCCESS)                                 \
      cufft_log(gausslab_cufft_status_, #expr, __FILE__, __LINE__);              \
  } while (0)

// ---- launch shape ------------------------------------------------------------------------------

// A warp along x (rows are contiguous in the planes and in the images), 8 rows per block. Rows
// beyond grid.y's limit are covered by a grid-stride loop, so any plane height works.
struct LaunchPolicy {
  static constexpr int kThreadsX = 32;
  static constexpr int kThreadsY = 8;
  static constexpr int kMaxBlocksY = 65535;
};

dim3 block_shape() { return dim3(LaunchPolicy::kThreadsX, LaunchPolicy::kThreadsY); }

dim3 grid_shape(int columns, int rows) {
  return dim3(static_cast<unsigned>(div_up(columns, LaunchPolicy::kThreadsX)),
              static_cast<unsigned>(std::min(div_up(rows, LaunchPolicy::kThreadsY), LaunchPolicy::kMaxBlocksY)));
}

// ---- planar channels: one float plane per channel, planes `plane` elements apart ---------------

__device__ __forceinline__ void store_to_planes(float value, float* d_planes, size_t /*plane*/, size_t index) {
  d_planes[index] = value;
}
__device__ __forceinline__ void store_to_planes(float4 value, float* d_planes, size_t plane, size_t index) {
  d_planes[index] = value.x;
  d_planes[index + plane] = value.y;
  d_planes[index + 2 * plane] = value.z;
  d_planes[index + 3 * plane] = value.w;
}

template <class Accum>
__device__ Accum load_from_planes(const float* d_planes, size_t plane, size_t index);
template <>
__device__ __forceinline__ float load_from_planes<float>(const float* d_planes, size_t /*plane*/, size_t index) {
  return d_planes[index];
}
template <>
__device__ __forceinline__ float4 load_from_planes<float4>(const float* d_planes, size_t plane, size_t index) {
  return make_float4(d_planes[index], d_planes[index + plane], d_planes[index + 2 * plane], d_planes[index + 3 * plane]);
}

// ---- kernels -----------------------------------------------------------------------------------

// Fills every padded sample (px, py) of every channel plane: the image sample that the border
// extension puts there, or zero ('constant' outside the image).
template <PixelFormat F>
__global__ void padKernel(ConstImageView src, FftLayout layout, BorderMode border, float* d_planes) {
  using Storage = PixelStorage<F>;
  const int px = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (px >= layout.padded_width) return;
  const int sx = fft::padded_source_index(px, layout.radius, layout.width, border);
  const size_t plane = layout.real_plane_size();
  for (int py = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); py < layout.padded_height;
       py += static_cast<int>(gridDim.y * blockDim.y)) {
    const int sy = fft::padded_source_index(py, layout.radius, layout.height, border);
    PixelAccum<F> value = zero_value<PixelAccum<F>>();
    if (sx >= 0 && sy >= 0) value = to_accum(src.row<Storage>(sy)[sx]);
    store_to_planes(value, d_planes, plane, layout.real_index(0, px, py));
  }
}

// Multiplies every channel's half spectrum by the real kernel spectrum factor_x[u] · factor_y[v].
__global__ void multiplyKernel(cufftComplex* d_spectra, const float* d_factor_x, const float* d_factor_y,
                               FftLayout layout) {
  const int u = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (u >= layout.spectrum_width()) return;
  const float factor_x = d_factor_x[u];
  for (int v = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); v < layout.padded_height;
       v += static_cast<int>(gridDim.y * blockDim.y)) {
    const float factor = factor_x * d_factor_y[v];
    for (int c = 0; c < layout.channels; ++c) {
      cufftComplex& z = d_spectra[layout.spectrum_index(c, u, v)];
      z.x *= factor;
      z.y *= factor;
    }
  }
}

// Writes output pixel (x, y) from padded sample (x + r, y + r) of every channel plane.
template <PixelFormat F>
__global__ void cropKernel(const float* d_planes, FftLayout layout, ImageView dst) {
  using Storage = PixelStorage<F>;
  using Accum = PixelAccum<F>;
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= layout.width) return;
  const int px = fft::padded_output_index(x, layout.radius);
  const size_t plane = layout.real_plane_size();
  for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < layout.height;
       y += static_cast<int>(gridDim.y * blockDim.y)) {
    const int py = fft::padded_output_index(y, layout.radius);
    dst.row<Storage>(y)[x] =
        FromAccum<Storage>::convert(load_from_planes<Accum>(d_planes, plane, layout.real_index(0, px, py)));
  }
}

// ---- cached plans and spectra ------------------------------------------------------------------

// One plan of a batched 2D transform over the layout's channel planes (cuFFT's row-major
// {Ph, Pw} order), with automatic work-area allocation off so that one work area serves all.
cufftHandle make_plan(const FftLayout& layout, cufftType type, size_t* work_bytes) {
  cufftHandle plan = 0;
  GAUSSLAB_CUFFT_CHECK(cufftCreate(&plan));
  try {
    GAUSSLAB_CUFFT_CHECK(cufftSetAutoAllocation(plan, 0));
    int size[2] = {layout.padded_height, layout.padded_width};
    int real_embed[2] = {layout.padded_height, layout.padded_width};
    int spectrum_embed[2] = {layout.padded_height, layout.spectrum_width()};
    // make_layout guarantees that a plane's element count fits in int.
    const int real_distance = static_cast<int>(layout.real_plane_size());
    const int spectrum_distance = static_cast<int>(layout.spectrum_plane_size());
    if (type == CUFFT_R2C) {
      GAUSSLAB_CUFFT_CHECK(cufftMakePlanMany(plan, 2, size, real_embed, 1, real_distance, spectrum_embed, 1,
                                             spectrum_distance, CUFFT_R2C, layout.channels, work_bytes));
    } else {
      GAUSSLAB_CUFFT_CHECK(cufftMakePlanMany(plan, 2, size, spectrum_embed, 1, spectrum_distance, real_embed, 1,
                                             real_distance, CUFFT_C2R, layout.channels, work_bytes));
    }
  } catch (...) {
    GAUSSLAB_CUFFT_LOG(cufftDestroy(plan));
    throw;
  }
  return plan;
}

// The forward and inverse plans for one padded size and channel count.
class PlanPair {
 public:
  explicit PlanPair(const FftLayout& layout)
      : padded_width_(layout.padded_width), padded_height_(layout.padded_height), channels_(layout.channels) {
    size_t forward_work = 0, inverse_work = 0;
    forward_ = make_plan(layout, CUFFT_R2C, &forward_work);
    try {
      inverse_ = make_plan(layout, CUFFT_C2R, &inverse_work);
    } catch (...) {
      GAUSSLAB_CUFFT_LOG(cufftDestroy(forward_));
      throw;
    }
    work_bytes_ = std::max(forward_work, inverse_work);
  }
  ~PlanPair() {
    GAUSSLAB_CUFFT_LOG(cufftDestroy(forward_));
    GAUSSLAB_CUFFT_LOG(cufftDestroy(inverse_));
  }
  PlanPair(const PlanPair&) = delete;
  PlanPair& operator=(const PlanPair&) = delete;

  bool serves(const FftLayout& layout) const {
    return padded_width_ == layout.padded_width && padded_height_ == layout.padded_height &&
           channels_ == layout.channels;
  }
  cufftHandle forward() const { return forward_; }
  cufftHandle inverse() const { return inverse_; }
  size_t work_bytes() const { return work_bytes_; }

 private:
  int padded_width_, padded_height_, channels_;
  cufftHandle forward_ = 0, inverse_ = 0;
  size_t work_bytes_ = 0;
};

// The kernel's spectrum factors for one padded size, sigma and radius, on the host: Kx (Pw/2 + 1
// floats, with 1/(Pw Ph)), then Ky (Ph). The current ones are the method's device weights.
struct CachedSpectrum {
  int padded_width = 0, padded_height = 0;
  double sigma = 0;
  int radius = 0;
  std::vector<float> factors;

  bool serves(const FftLayout& layout, double other_sigma) const {
    return padded_width == layout.padded_width && padded_height == layout.padded_height &&
           sigma == other_sigma && radius == layout.radius;
  }
};

// How many recent padded sizes keep their plans, and how many (size, sigma) keep their spectra
// (a few KiB each, on the host). A slider dragged back and forth stays within these.
constexpr std::size_t kPlanCacheSize = 4;
constexpr std::size_t kSpectrumCacheSize = 32;

// Moves the entry that `serves` to the back (most recently used) and returns it, or nullptr.
template <class Entry, class Predicate>
Entry* find_and_touch(std::vector<std::unique_ptr<Entry>>& cache, Predicate serves) {
  auto found = std::find_if(cache.begin(), cache.end(), [&](const std::unique_ptr<Entry>& e) { return serves(*e); });
  if (found == cache.end()) return nullptr;
  std::rotate(found, found + 1, cache.end());
  return cache.back().get();
}

// Adds an entry as the most recently used one and drops the least recently used beyond `capacity`.
template <class Entry>
Entry* insert_and_trim(std::vector<std::unique_ptr<Entry>>& cache, std::unique_ptr<Entry> entry, std::size_t capacity) {
  Entry* inserted = entry.get();
  cache.push_back(std::move(entry));
  while (cache.size() > capacity) cache.erase(cache.begin());
  return inserted;
}

double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

// The promise: float32 FFT round-off, 1e-4 of the peak for float images (measured 7.2e-7 at worst on
// the H100's GPU sweep, docs/methods/fft.md), 0.53 levels for 8-bit ones (0.5 the rounding).
constexpr AccuracyBound kFftBound{1e-4, 0.53};

// ---- the method --------------------------------------------------------------------------------

class FftMethod final : public GpuMethod {
 public:
  using GpuMethod::GpuMethod;

  ~FftMethod() override { fence().wait_for_last_run_logged(); }  // the cached plans go after the runs

  AccuracyBound accuracy_bound(const FilterProblem&) const override { return kFftBound; }

 protected:
  std::string method_limits(const FilterProblem& problem) const override {
    const int radius = problem.params.radius();
    const int channels = channel_count(problem.format);
    const long long padded_width = fft::padded_width_for(problem.width, radius);
    const long long padded_height = fft::padded_height_for(problem.height, radius);
    const fft::FftMemory memory = fft::estimate_memory(padded_width, padded_height, channels);
    char text[400];
    if (memory.total_bytes > fft::kMemoryBudgetBytes) {
      std::snprintf(text, sizeof text,
                    "the padded %lld×%lld FFT of %d channel%s (image + 2 × radius %d per axis) needs about %.1f GiB "
                    "of device memory, more than this method's budget of %.0f GiB; lower sigma or the image size, "
                    "or pick another method",
                    padded_width, padded_height, channels, channels == 1 ? "" : "s", radius, gib(memory.total_bytes),
                    gib(fft::kMemoryBudgetBytes));
      return text;
    }
    if (padded_width > INT_MAX || padded_height > INT_MAX || padded_width * padded_height > INT_MAX) {
      std::snprintf(text, sizeof text,
                    "the padded %lld×%lld FFT has more samples per plane than cuFFT's int sizes address; lower "
                    "sigma or the image size",
                    padded_width, padded_height);
      return text;
    }
    return {};
  }

  void on_prepare(const FilterProblem& problem) override {
    plans_in_use_ = nullptr;  // until this completes (a failure leaves none)
    // Plans may be dropped from the cache and the shared work area may move: never under a run.
    fence().wait_for_last_run();
    const FftLayout layout = fft::make_layout(problem);
    // The large buffers first: when they do not fit, the message says what the FFT needs.
    const std::string advice = "lower sigma or the image size, or pick another method";
    const std::string fft_size = describe_fft(layout);
    d_real_planes_.reserve(static_cast<size_t>(layout.channels) * layout.real_plane_size() * sizeof(float),
                           "the planes of a " + fft_size, advice);
    d_spectra_.reserve(static_cast<size_t>(layout.channels) * layout.spectrum_plane_size() * sizeof(cufftComplex),
                       "the spectra of a " + fft_size, advice);
    PlanPair& plans = plans_for(layout);
    d_work_area_.reserve(plans.work_bytes(), "cuFFT's work area for a " + fft_size, advice);
    // The shared work area may have moved since this (cached) plan last used it.
    if (plans.work_bytes() > 0) {
      GAUSSLAB_CUFFT_CHECK(cufftSetWorkArea(plans.forward(), d_work_area_.data()));
      GAUSSLAB_CUFFT_CHECK(cufftSetWorkArea(plans.inverse(), d_work_area_.data()));
    }
    weights().set(spectrum_for(layout, problem.params.sigma).factors, "the kernel spectrum");
    layout_ = layout;
    plans_in_use_ = &plans;
  }

  void run_kernels(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) override {
    const FftLayout& layout = layout_;
    const FilterProblem& problem = kernel_problem();
    float* d_real_planes = d_real_planes_.as<float>();
    cufftComplex* d_spectra = d_spectra_.as<cufftComplex>();
    const float* d_factor_x = weights().device();
    const float* d_factor_y = d_factor_x + layout.spectrum_width();

    // The caller may pass another stream each run; setting it is cheap.
    GAUSSLAB_CUFFT_CHECK(cufftSetStream(plans_in_use_->forward(), stream));
    GAUSSLAB_CUFFT_CHECK(cufftSetStream(plans_in_use_->inverse(), stream));

    dispatch_format(problem.format, [&](auto tag) {
      constexpr PixelFormat F = decltype(tag)::value;
      {
        ScopedStage stage(timer, "pad", stream);
        padKernel<F><<<grid_shape(layout.padded_width, layout.padded_height), block_shape(), 0, stream>>>(
            src, layout, problem.params.border, d_real_planes);
        GAUSSLAB_CUDA_CHECK_LAUNCH("padKernel", stream);
      }
      {
        ScopedStage stage(timer, "forward", stream);
        GAUSSLAB_CUFFT_CHECK(cufftExecR2C(plans_in_use_->forward(), d_real_planes, d_spectra));
      }
      {
        ScopedStage stage(timer, "multiply", stream);
        multiplyKernel<<<grid_shape(layout.spectrum_width(), layout.padded_height), block_shape(), 0, stream>>>(
            d_spectra, d_factor_x, d_factor_y, layout);
        GAUSSLAB_CUDA_CHECK_LAUNCH("multiplyKernel", stream);
      }
      {
        // Out of place, C2R overwrites its input: the spectra are scratch, the factors are not touched.
        ScopedStage stage(timer, "inverse", stream);
        GAUSSLAB_CUFFT_CHECK(cufftExecC2R(plans_in_use_->inverse(), d_spectra, d_real_planes));
      }
      {
        ScopedStage stage(timer, "crop", stream);
        cropKernel<F><<<grid_shape(layout.width, layout.height), block_shape(), 0, stream>>>(d_real_planes, layout,
                                                                                            dst);
        GAUSSLAB_CUDA_CHECK_LAUNCH("cropKernel", stream);
      }
    });
  }

 private:
  PlanPair& plans_for(const FftLayout& layout) {
    if (PlanPair* cached = find_and_touch(plans_, [&](const PlanPair& p) { return p.serves(layout); })) return *cached;
    return *insert_and_trim(plans_, std::make_unique<PlanPair>(layout), kPlanCacheSize);
  }

  const CachedSpectrum& spectrum_for(const FftLayout& layout, double sigma) {
    if (CachedSpectrum* cached =
            find_and_touch(spectra_, [&](const CachedSpectrum& s) { return s.serves(layout, sigma); }))
      return *cached;
    const fft::KernelSpectrum host = fft::kernel_spectrum(layout, gaussian_weights(sigma, layout.radius));
    auto entry = std::make_unique<CachedSpectrum>();
    entry->padded_width = layout.padded_width;
    entry->padded_height = layout.padded_height;
    entry->sigma = sigma;
    entry->radius = layout.radius;
    entry->factors.reserve(host.x.size() + host.y.size());
    entry->factors.insert(entry->factors.end(), host.x.begin(), host.x.end());
    entry->factors.insert(entry->factors.end(), host.y.begin(), host.y.end());
    return *insert_and_trim(spectra_, std::move(entry), kSpectrumCacheSize);
  }

  // "padded 16800×16800 FFT of 1 channel (3.16 GiB in all: planes, spectra, cuFFT work area)".
  static std::string describe_fft(const FftLayout& layout) {
    const fft::FftMemory memory = fft::estimate_memory(layout.padded_width, layout.padded_height, layout.channels);
    char text[160];
    std::snprintf(text, sizeof text,
                  "padded %d×%d FFT of %d channel%s (%.2f GiB in all: planes, spectra, cuFFT work area)",
                  layout.padded_width, layout.padded_height, layout.channels, layout.channels == 1 ? "" : "s",
                  gib(memory.total_bytes));
    return text;
  }

  std::vector<std::unique_ptr<PlanPair>> plans_;          // most recently used last
  std::vector<std::unique_ptr<CachedSpectrum>> spectra_;  // most recently used last
  ScratchBuffer d_real_planes_{fence()};  // channels × Pw × Ph floats
  ScratchBuffer d_spectra_{fence()};      // channels × (Pw/2 + 1) × Ph complex
  ScratchBuffer d_work_area_{fence()};    // shared by every cached plan (one runs at a time)
  FftLayout layout_{};
  PlanPair* plans_in_use_ = nullptr;
};

}  // namespace

MethodEntry fft_method() {
  MethodInfo info{"fft", "cuFFT convolution",
                  "Pad with the border extension to a fast size ≥ (W+2r)×(H+2r), R2C, multiply by the cached "
                  "kernel spectrum, C2R; cost O(N log N) independent of sigma except through the padding",
                  {},
                  Backend::Cuda};
  // RGBA8 and F32 compiled, the others as F32 planes
  info.formats = FormatSet::of_samples({SampleType::U8, SampleType::F16, SampleType::F32});
  info.accuracy = accuracy_promise("float32 FFT round-off", kFftBound, info.formats);
  return {info, [info] { return std::make_unique<FftMethod>(info); }};
}

}  // namespace gausslab
