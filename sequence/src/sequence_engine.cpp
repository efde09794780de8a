// What both engines share: validation of a setup, the choice of backend, and the factory (the
// settings alone are checked in sequence_settings.cpp).
#include "gausslab/sequence/sequence_engine.hpp"

#include <cmath>
#include <stdexcept>

#include "engines.hpp"
#include "gausslab/cuda/device.hpp"

namespace gausslab {

const char* to_string(SequenceBackend backend) { return backend == SequenceBackend::Gpu ? "gpu" : "cpu"; }

const char* to_string(FrameVerdict verdict) {
  switch (verdict) {
    case FrameVerdict::Used: return "used";
    case FrameVerdict::Reference: return "reference";
    case FrameVerdict::SegmentStart: return "scene-cut";
    case FrameVerdict::NoMatch: return "no-match";
    case FrameVerdict::Rejected: return "rejected";
    case FrameVerdict::Degenerate: return "flat";
    case FrameVerdict::LoneReference: return "unmatched-reference";
  }
  return "?";
}

bool left_out(FrameVerdict verdict) {
  return verdict == FrameVerdict::NoMatch || verdict == FrameVerdict::Rejected ||
         verdict == FrameVerdict::Degenerate || verdict == FrameVerdict::LoneReference;
}

namespace {

using seq::ShiftStatus;

bool is(const seq::ShiftRecord& r, ShiftStatus status) { return r.status == static_cast<int>(status); }

// The verdict a record gives on its own (before what the frames after it say).
FrameVerdict own_verdict(const seq::ShiftRecord& r) {
  if (is(r, ShiftStatus::Estimated)) return FrameVerdict::Used;
  if (is(r, ShiftStatus::Reference))
    return (r.flags & seq::kFlagStartsSegment) ? FrameVerdict::SegmentStart : FrameVerdict::Reference;
  if (is(r, ShiftStatus::NoMatch)) return FrameVerdict::NoMatch;
  if (is(r, ShiftStatus::Rejected)) return FrameVerdict::Rejected;
  return FrameVerdict::Degenerate;
}

}  // namespace

// A held frame's verdict is known when: (failed) the next frame is there to say whether it
// confirmed a cut; (a reference) a later frame of its segment was used, or a later segment began.
bool SequenceEngine::decided(std::size_t i) const {
  const seq::ShiftRecord& r = held_[i].shift;
  if (seq::can_start_segment(r.status)) return i + 1 < held_.size();
  if (is(r, ShiftStatus::Reference) && !(r.flags & seq::kFlagStartsSegment)) {
    for (std::size_t j = i + 1; j < held_.size(); ++j) {
      const seq::ShiftRecord& later = held_[j].shift;
      if (later.segment > r.segment) return true;
      if (later.segment == r.segment && is(later, ShiftStatus::Estimated)) return true;
    }
    return false;
  }
  return true;
}

std::optional<FrameOutcome> SequenceEngine::collect(bool wait) {
  for (;;) {
    if (!held_.empty() && decided(0)) break;
    std::optional<FrameOutcome> next = take_processed(wait);
    if (next) {
      next->verdict = own_verdict(next->shift);
      held_.push_back(std::move(*next));
      continue;
    }
    if (held_.empty() || !wait) return std::nullopt;
    break;  // nothing more will come: decide with what there is
  }
  FrameOutcome out = std::move(held_.front());
  held_.pop_front();
  seq::ShiftRecord& r = out.shift;
  if (seq::can_start_segment(r.status) && !held_.empty() && (held_.front().shift.flags & seq::kFlagConfirmsCut)) {
    // The next frame matched this one, not the reference: a new scene starts here.
    r.status = static_cast<int>(ShiftStatus::Reference);
    r.dx = r.dy = 0.0;
    r.kx = r.ky = 0;
    r.flags |= seq::kFlagStartsSegment;
    r.segment = held_.front().shift.segment;
    out.verdict = FrameVerdict::SegmentStart;
  } else if (out.verdict == FrameVerdict::Reference) {
    for (const FrameOutcome& later : held_) {
      if (later.shift.segment == r.segment && is(later.shift, ShiftStatus::Estimated)) break;
      if (later.shift.segment > r.segment) {
        out.verdict = FrameVerdict::LoneReference;
        break;
      }
    }
  }
  return out;
}

std::string validate(const SequenceSetup& setup, SequenceBackend backend) {
  if (std::string problem = validate(setup.settings); !problem.empty()) return problem;
  if (setup.width < seq::kMinSide || setup.height < seq::kMinSide)
    return "frames of " + std::to_string(setup.width) + "x" + std::to_string(setup.height) +
           " are too small: shift estimation needs at least " + std::to_string(seq::kMinSide) + " px on each side";
  if (static_cast<long long>(setup.width) * setup.height > kMaxPixels)
    return "frames of " + std::to_string(setup.width) + "x" + std::to_string(setup.height) + " are too large";
  if (setup.prefilter) {
    const MethodInfo& info = setup.prefilter->info();
    const bool gpu_method = info.backend == Backend::Cuda;
    if (gpu_method != (backend == SequenceBackend::Gpu))
      return std::string("the pre-filter ") + info.id + " runs on the " + (gpu_method ? "GPU" : "CPU") +
             " but the sequence runs on the " + (backend == SequenceBackend::Gpu ? "GPU" : "CPU") +
             ": choose a " + (backend == SequenceBackend::Gpu ? "GPU" : "CPU") + " method";
    const FilterProblem problem{setup.width, setup.height, PixelFormat::F32, setup.prefilter_params};
    if (std::string reason = setup.prefilter->unsupported_reason(problem); !reason.empty())
      return std::string("the pre-filter ") + info.id + " cannot run: " + reason;
  }
  return {};
}

SequenceBackend default_sequence_backend() {
  return cuda_device_status().available ? SequenceBackend::Gpu : SequenceBackend::Cpu;
}

std::unique_ptr<SequenceEngine> create_sequence_engine(SequenceBackend backend) {
  if (backend == SequenceBackend::Cpu) return make_cpu_sequence_engine();
  const CudaDeviceStatus& status = cuda_device_status();
  if (!status.available) throw std::runtime_error("the GPU sequence engine needs a CUDA device: " + status.reason);
  return make_gpu_sequence_engine();
}

}  // namespace gausslab
