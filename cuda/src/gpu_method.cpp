#include "gausslab/cuda/gpu_method.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/halo_reads.hpp"

namespace gausslab {

bool rows_aligned(const ConstImageView& view, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(view.data) % bytes == 0 && view.pitch_bytes % bytes == 0;
}

std::string row_alignment_problem(const std::string& method_id, const ConstImageView& src, const ImageView& dst,
                                  bool check_source) {
  const bool source_ok = !check_source || rows_aligned(src, 4);
  if (source_ok && rows_aligned(dst, 4)) return {};
  return method_id + ": every image row must start on a 4-byte boundary (pixels are read and written as 4-byte " +
         "words; source pitch " + std::to_string(src.pitch_bytes) + ", destination pitch " +
         std::to_string(dst.pitch_bytes) + " bytes); pass views whose pitch and address are multiples of 4";
}

std::string GpuMethod::unsupported_reason(const FilterProblem& problem) const {
  if (std::string refusal = common_refusal(info_, problem); !refusal.empty()) return refusal;
  return method_limits(problem);
}

void GpuMethod::prepare(const FilterProblem& problem) {
  if (std::string reason = unsupported_reason(problem); !reason.empty())
    throw std::invalid_argument(info_.id + ": " + reason);
  if (const CudaDeviceStatus& device = cuda_device_status(); !device.available)
    throw CudaUnavailable(info_.id + ": " + device.reason);
  if (problem == prepared_) return;
  try {
    on_prepare(problem);
  } catch (...) {
    prepared_ = FilterProblem{};  // buffers may be half replaced: run() must ask for prepare() again
    (void)cudaGetLastError();     // a failed allocation's error must not be blamed on the next kernel
    throw;
  }
  prepared_ = problem;
}

void GpuMethod::run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) {
  run_checked(src, dst, stream, [&] { run_kernels(src, dst, timer, stream); });
}

void GpuMethod::run_checked(const ConstImageView& src, const ImageView& dst, cudaStream_t stream,
                            const std::function<void()>& kernels) {
  check_views(src, dst);
  if (std::string problem = row_alignment_problem(info_.id, src, dst, reads_source_as_words()); !problem.empty())
    throw std::invalid_argument(problem);
  run_fenced(stream, kernels);
}

HaloReads* halo_reads(Method& method) { return dynamic_cast<HaloReads*>(&method); }

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
  run_checked(src, dst, stream, [&] {
    halo_in_memory_ = true;
    bands_ = bands;
    struct Reset {
      HaloReadingGpuMethod& method;
      ~Reset() {
        method.halo_in_memory_ = false;
        method.bands_ = BandRange{};
      }
    } reset{*this};
    run_kernels(src, dst, nullptr, stream);
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
