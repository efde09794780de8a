#include "gausslab/cuda/gpu_method.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/channel_planes.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/halo_reads.hpp"

namespace gausslab {

bool rows_aligned(const ConstImageView& view, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(view.data) % bytes == 0 && view.pitch_bytes % bytes == 0;
}

std::size_t pixel_alignment(PixelFormat format) {
  return channel_count(format) == 3 ? bytes_per_sample(sample_type(format)) : bytes_per_pixel(format);
}

std::string row_alignment_problem(const std::string& method_id, const ConstImageView& src, const ImageView& dst,
                                  std::size_t alignment, bool check_source) {
  const bool source_ok = !check_source || rows_aligned(src, alignment);
  if (source_ok && rows_aligned(dst, alignment)) return {};
  const std::string bytes = std::to_string(alignment);
  return method_id + ": every image row must start on a " + bytes + "-byte boundary (" + to_string(src.format) +
         " pixels are read and written as " + bytes + "-byte words; source pitch " + std::to_string(src.pitch_bytes) +
         ", destination pitch " + std::to_string(dst.pitch_bytes) + " bytes); pass views whose pitch and address are " +
         "multiples of " + bytes;
}

unsigned GpuMethod::grid_blocks(long long blocks, const std::string& kernel) {
  constexpr long long kMaxGridBlocks = 0x7fffffffLL;  // 2^31 - 1 blocks along x
  if (blocks <= 0 || blocks > kMaxGridBlocks)
    throw std::invalid_argument(kernel + ": a launch of " + std::to_string(blocks) +
                                " blocks; a one-dimensional grid holds 1 to 2^31 - 1 (a smaller image runs)");
  return static_cast<unsigned>(blocks);
}

void GpuMethod::set_shared_memory(const void* kernel, std::size_t max_dynamic_bytes, Carveout carveout) {
  if (max_dynamic_bytes > 0)
    GAUSSLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(max_dynamic_bytes)));
  if (carveout == Carveout::PreferShared)
    GAUSSLAB_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
}

std::string GpuMethod::unsupported_reason(const FilterProblem& problem) const {
  // The axes before the format (common_refusal): a 1D signal on a 2D-only method is refused for what
  // it is, whatever its samples (converting them would not help).
  if (std::string refusal = common_refusal(info_, problem); !refusal.empty()) return refusal;
  return method_limits(problem);
}

GpuMethod::Route GpuMethod::route(PixelFormat format) const {
  return format == PixelFormat::Rgba8 || format == PixelFormat::F32 ? Route::Native : Route::FloatPlanes;
}

PixelFormat GpuMethod::kernel_format(PixelFormat format) const {
  switch (route(format)) {
    case Route::FloatPlanes: return PixelFormat::F32;
    case Route::WidenToRgba8: return PixelFormat::Rgba8;
    default: return format;
  }
}

std::size_t GpuMethod::row_alignment(PixelFormat format) const {
  return route(format) == Route::Native ? pixel_alignment(format) : bytes_per_sample(sample_type(format));
}

int GpuMethod::kernel_planes() const {
  return route_ == Route::FloatPlanes ? channel_count(prepared_.format) : 1;
}

void GpuMethod::prepare(const FilterProblem& problem) {
  if (std::string reason = unsupported_reason(problem); !reason.empty())
    throw std::invalid_argument(info_.id + ": " + reason);
  if (const CudaDeviceStatus& device = cuda_device_status(); !device.available)
    throw CudaUnavailable(info_.id + ": " + device.reason);
  if (problem == prepared_) return;
  const Route new_route = route(problem.format);
  FilterProblem kernel = problem;
  kernel.format = kernel_format(problem.format);
  try {
    on_prepare(kernel);
    prepared_ = problem;  // for reserve_planes; undone below when it fails
    route_ = new_route;
    planes_halo_ = -1;
    if (route_ != Route::Native) reserve_planes(0);
  } catch (...) {
    prepared_ = FilterProblem{};  // buffers may be half replaced: run() must ask for prepare() again
    kernel_problem_ = FilterProblem{};
    (void)cudaGetLastError();     // a failed allocation's error must not be blamed on the next kernel
    throw;
  }
  kernel_problem_ = kernel;
}

void GpuMethod::reserve_planes(int halo) {
  const int planes = kernel_planes();
  const std::size_t element = route_ == Route::FloatPlanes ? sizeof(float) : 4;  // a float or an RGBA8 pixel
  const channels::PlaneLayout layout =
      channels::plane_layout(prepared_.width, prepared_.height, halo, planes, element);
  const std::string what = "the " + std::to_string(planes) + " channel plane" + (planes == 1 ? "" : "s") + " of a " +
                           std::to_string(prepared_.width) + "×" + std::to_string(prepared_.height) + " " +
                           to_string(prepared_.format) + " image";
  planes_in_.reserve(channels::planes_bytes(layout), what);
  const channels::PlaneLayout out = channels::plane_layout(prepared_.width, prepared_.height, 0, planes, element);
  planes_out_.reserve(channels::planes_bytes(out), what);
  planes_halo_ = halo;
}

void GpuMethod::run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) {
  run_checked(src, dst, stream, timer, 0, true,
              [&](const ConstImageView& s, const ImageView& d, int) { run_kernels(s, d, timer, stream); });
}

void GpuMethod::run_checked(const ConstImageView& src, const ImageView& dst, cudaStream_t stream, StageTimer* timer,
                            int halo, bool writes_output, const KernelRun& kernels) {
  check_views(src, dst);
  const bool native = route_ == Route::Native;
  const bool check_source = !native || reads_source_as_words();
  if (std::string problem = row_alignment_problem(info_.id, src, dst, row_alignment(src.format), check_source);
      !problem.empty())
    throw std::invalid_argument(problem);
  if (native) {
    run_fenced(stream, [&] { kernels(src, dst, 0); });
    return;
  }
  if (halo > planes_halo_) reserve_planes(halo);  // waits for the last run, which may read the planes
  const int planes = kernel_planes();
  const bool widened = route_ == Route::WidenToRgba8;
  const std::size_t element = widened ? 4 : sizeof(float);
  const channels::PlaneLayout in = channels::plane_layout(src.width, src.height, halo, planes, element);
  const channels::PlaneLayout out = channels::plane_layout(src.width, src.height, 0, planes, element);
  const PixelFormat kernel = kernel_problem_.format;
  run_fenced(stream, [&] {
    {
      ScopedStage stage(timer, widened ? "to rgba8" : "to float planes", stream);
      if (widened)
        channels::widen_to_rgba8(src, in, planes_in_.data(), stream);
      else
        channels::unpack_planes(src, in, planes_in_.data(), stream);
    }
    for (int plane = 0; plane < planes; ++plane)
      kernels(channels::plane_view(planes_in_.data(), in, plane, kernel),
              channels::plane_view(planes_out_.data(), out, plane, kernel), plane);
    if (!writes_output) return;
    ScopedStage stage(timer, widened ? "from rgba8" : "from float planes", stream);
    if (widened)
      channels::narrow_from_rgba8(planes_out_.data(), out, dst, stream);
    else
      channels::pack_planes(planes_out_.data(), out, dst, prepared_.params.rounding, stream);
  });
}

HaloReads* halo_reads(Method& method) { return dynamic_cast<HaloReads*>(&method); }

WindowBands HaloReadingGpuMethod::window_bands() const {
  WindowBands bands = kernel_window_bands();
  bands.partial_bytes_per_pixel *= kernel_planes();  // plane c's totals follow plane c - 1's in each row
  return bands;
}

void HaloReadingGpuMethod::run_reading_halo(const ConstImageView& src, const ImageView& dst, const BandRange& bands,
                                            cudaStream_t stream) {
  const WindowBands window = window_bands();
  const bool split = bands.first > 0 || bands.end < window.count;
  if (bands.first < 0 || bands.first >= window.count || bands.end <= bands.first)
    throw std::invalid_argument(info().id + ": bands [" + std::to_string(bands.first) + ", " + std::to_string(bands.end) +
                                ") of a window cut into " + std::to_string(window.count));
  if (split && (bands.partial == nullptr ||
                bands.partial_pitch_bytes < static_cast<std::size_t>(dst.width) * window.partial_bytes_per_pixel))
    throw std::invalid_argument(info().id + ": a run of some of the window's bands needs running totals for every output");
  // A plane's totals: the same rows, from its own offset in each (the kernels' format's bytes a pixel).
  const std::size_t plane_totals_bytes =
      static_cast<std::size_t>(dst.width) * static_cast<std::size_t>(kernel_window_bands().partial_bytes_per_pixel);
  const bool writes_output = bands.end >= window.count;
  run_checked(src, dst, stream, nullptr, kernel_problem().params.radius(), writes_output,
              [&](const ConstImageView& s, const ImageView& d, int plane) {
                halo_in_memory_ = true;
                bands_ = bands;
                if (bands_.partial) bands_.partial = static_cast<char*>(bands.partial) + plane * plane_totals_bytes;
                struct Reset {
                  HaloReadingGpuMethod& method;
                  ~Reset() {
                    method.halo_in_memory_ = false;
                    method.bands_ = BandRange{};
                  }
                } reset{*this};
                run_kernels(s, d, nullptr, stream);
              });
}

void GpuMethod::run_fenced(cudaStream_t stream, const std::function<void()>& kernels) {
  fence_.begin_run(stream);
  try {
    weights_.upload_if_changed(stream);
    kernels();
  } catch (...) {
    try {
      fence_.end_run(stream);  // what did launch is waited for before anything it reads changes
    } catch (const CudaError&) {
      // the first failure is the one to report
    }
    throw;
  }
  fence_.end_run(stream);
}

}  // namespace gausslab
