#include "gausslab/sequence/grey_display_method.hpp"

#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/grey_display.hpp"

namespace gausslab {

GreyDisplayMethod::GreyDisplayMethod(SequenceBackend backend, std::string id, std::string label)
    : backend_(backend) {
  info_.id = std::move(id);
  info_.label = std::move(label);
  info_.summary = "a frame of the image sequence, mapped to grey levels for display";
  info_.backend = backend == SequenceBackend::Gpu ? Backend::Cuda : Backend::Cpu;
  if (backend_ == SequenceBackend::Gpu)
    GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&read_done_, cudaEventDisableTiming));
}

GreyDisplayMethod::~GreyDisplayMethod() {
  if (read_done_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(read_done_));
}

void GreyDisplayMethod::show(const ConstImageView& frame, const GreyMapping& mapping, cudaEvent_t ready) {
  frame_ = frame;
  mapping_ = mapping;
  ready_ = ready;
}

std::string GreyDisplayMethod::unsupported_reason(const FilterProblem& problem) const {
  if (problem.format != PixelFormat::Rgba8) return "shows frames as RGBA8 only";
  return {};
}

void GreyDisplayMethod::prepare(const FilterProblem& problem) {
  if (std::string reason = unsupported_reason(problem); !reason.empty()) throw std::invalid_argument(reason);
  prepared_ = problem;
}

void GreyDisplayMethod::run(const ConstImageView& src, const ImageView& dst, StageTimer* timer, cudaStream_t stream) {
  check_views(src, dst);
  if (!frame_.data) throw std::invalid_argument(info_.id + ": no frame to show yet");
  if (frame_.width != dst.width || frame_.height != dst.height || frame_.format != PixelFormat::F32)
    throw std::invalid_argument(info_.id + ": the frame does not match the picture's size");
  if (backend_ == SequenceBackend::Cpu) {
    for (int y = 0; y < dst.height; ++y)
      for (int x = 0; x < dst.width; ++x) dst.row<Rgba8>(y)[x] = grey_display_pixel(frame_.row<float>(y)[x], mapping_);
    return;
  }
  if (ready_) GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, ready_, 0));
  {
    ScopedStage stage(timer, info_.id.c_str(), stream);
    launch_grey_display(frame_, dst, mapping_, stream);
  }
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(read_done_, stream));
}

}  // namespace gausslab
