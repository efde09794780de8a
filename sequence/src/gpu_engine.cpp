// The GPU engine: the kernels of cuda/sequence_kernels.hpp on one stream, the history in a ring of
// device frames (each frame uploaded once, read once by each whitening that uses it).
//
// One frame, all queued without waiting:
//   upload (into its ring slot, or a raw buffer when pre-filtering) → pre-filter (any GPU method)
//   → projections → profiles → coarse search → fine sums → solve (shift, then weights)
//   → whitening (reads the frame and the N history frames once) → copies of the shift record,
//   the weights and (optionally) the whitened frame into pinned memory → an event.
// The host reads a frame's copies once its event has completed (collect), up to kInFlight frames
// later. Only the choice of the reference waits, once per sequence.
#include <deque>
#include <stdexcept>
#include <vector>

#include "engines.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device_buffer.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/cuda/sequence_kernels.hpp"

namespace gausslab {

namespace {

constexpr int kInFlight = 4;  // frames queued before push() waits for the oldest

seq::GreyView grey(const ImageView& v) {
  return {static_cast<const float*>(v.data), v.width, v.height,
          static_cast<std::ptrdiff_t>(v.pitch_bytes / sizeof(float))};
}

class GpuSequenceEngine final : public SequenceEngine {
 public:
  GpuSequenceEngine() {
    GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~GpuSequenceEngine() override {
    if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream_));
    for (cudaEvent_t e : done_)
      if (e) GAUSSLAB_CUDA_LOG(cudaEventDestroy(e));
    if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream_));
  }
  GpuSequenceEngine(const GpuSequenceEngine&) = delete;
  GpuSequenceEngine& operator=(const GpuSequenceEngine&) = delete;

  SequenceBackend backend() const override { return SequenceBackend::Gpu; }
  cudaStream_t stream() const override { return stream_; }

  void begin(const SequenceSetup& setup) override {
    if (std::string problem = validate(setup, SequenceBackend::Gpu); !problem.empty())
      throw std::invalid_argument(problem);
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // nothing of the old sequence in flight
    setup_ = setup;
    pushed_ = 0;
    pending_.clear();
    ready_.clear();
    has_reference_ = false;
    const int w = setup.width, h = setup.height, slots = setup.settings.history + 1;
    slots_ = slots;
    ring_.resize(w, h * slots, PixelFormat::F32);
    if (setup.prefilter) raw_.resize(w, h, PixelFormat::F32);
    reference_mean_.resize(w, h, PixelFormat::F32);
    whitened_.resize(w, h, PixelFormat::F32);
    GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(whitened_.view().data, whitened_.view().pitch_bytes, 0,
                                          sizeof(float) * w, h, stream_));
    sizes_ = seq::sequence_scratch_sizes(w, h);
    column_partials_.resize(sizeof(float) * sizes_.column_partials);
    row_partials_.resize(sizeof(float) * sizes_.row_partials);
    profiles_.resize(sizeof(double) * (w + h));
    high_passed_.resize(sizeof(double) * (w + h));
    reference_profiles_.resize(sizeof(double) * (w + h));
    offset_.resize(sizeof(int2));
    fine_partials_.resize(sizeof(double) * seq::kSumCount * sizes_.fine_blocks);
    records_.resize(sizeof(seq::ShiftRecord) * slots);
    weights_.resize(sizeof(seq::WhiteningWeights));
    records_host_.resize(sizeof(seq::ShiftRecord) * kInFlight);
    weights_host_.resize(sizeof(seq::WhiteningWeights) * kInFlight);
    whitened_host_.resize(setup.whitened_to_host ? sizeof(float) * w * h * kInFlight : 0);
    const std::vector<seq::ShiftRecord> missing(slots);
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(records_.data(), missing.data(), sizeof(seq::ShiftRecord) * slots,
                                        cudaMemcpyHostToDevice, stream_));
    if (setup.prefilter)
      setup.prefilter->prepare({w, h, PixelFormat::F32, setup.prefilter_params});
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void push(const ConstImageView& frame, StageTimer* timer) override {
    if (frame.width != setup_.width || frame.height != setup_.height || frame.format != PixelFormat::F32)
      throw std::invalid_argument("push: the frame is not a grey float image of the sequence's size");
    if (static_cast<int>(pending_.size()) == kInFlight) finish_oldest(true);
    const int in_flight = static_cast<int>(pushed_ % kInFlight);
    const int slot = static_cast<int>(pushed_ % slots_);
    const ImageView filtered = slot_view(slot);
    {
      ScopedStage stage(timer, "upload", stream_);
      copy_image_async(frame, setup_.prefilter ? raw_.view() : filtered, cudaMemcpyHostToDevice, stream_);
    }
    if (setup_.prefilter) {
      ScopedStage stage(timer, "pre-filter", stream_);
      setup_.prefilter->run(raw_.view(), filtered, nullptr, stream_);
    }
    latest_raw_ = setup_.prefilter ? raw_.view() : filtered;
    latest_filtered_ = filtered;

    const int history = setup_.settings.history;
    const bool full = pushed_ >= history;
    seq::HistoryArgs past;
    past.count = full ? history : 0;
    for (int j = 0; j < past.count; ++j) {
      past.slots[j] = static_cast<int>((pushed_ - 1 - j) % slots_);
      past.frames[j] = static_cast<const float*>(slot_view(past.slots[j]).data);
    }

    const bool candidate = !has_reference_;
    const seq::GreyView f = grey(filtered);
    const seq::GreyView r = grey(reference_mean_.view());
    {
      ScopedStage stage(timer, "shifts", stream_);
      seq::launch_projection_partials(f, column_partials_.as<float>(), row_partials_.as<float>(), stream_);
      seq::launch_profiles(column_partials_.as<float>(), row_partials_.as<float>(), f.width, f.height,
                           profiles_.as<double>(), profiles_.as<double>() + f.width, stream_);
      if (candidate) {
        seq::launch_local_mean(f, reference_mean_.view().row<float>(0), r.stride, stream_);
        seq::launch_reference_profiles(profiles_.as<double>(), profiles_.as<double>() + f.width, f.width, f.height,
                                       reference_profiles_.as<double>(), reference_profiles_.as<double>() + f.width,
                                       stream_);
      } else {
        seq::launch_coarse_search(profiles_.as<double>(), profiles_.as<double>() + f.width,
                                  reference_profiles_.as<double>(), reference_profiles_.as<double>() + f.width, f.width,
                                  f.height, setup_.settings.search_radius, high_passed_.as<double>(), offset_.as<int2>(),
                                  stream_);
      }
      seq::launch_fine_sums(r, f, candidate ? nullptr : offset_.as<int2>(), fine_partials_.as<double>(),
                            sizes_.fine_blocks, stream_);
    }
    {
      ScopedStage stage(timer, "coefficients", stream_);
      seq::launch_solve(fine_partials_.as<double>(), sizes_.fine_blocks, candidate ? nullptr : offset_.as<int2>(),
                        f.width, f.height, candidate, records_.as<seq::ShiftRecord>(), slot, past,
                        setup_.settings.degree, setup_.settings.gamma, weights_.as<seq::WhiteningWeights>(), stream_);
    }
    {
      ScopedStage stage(timer, "whitening", stream_);
      if (full) {
        const ImageView out = whitened_.view();
        seq::launch_whiten(f, past, weights_.as<seq::WhiteningWeights>(), out.row<float>(0),
                           static_cast<std::ptrdiff_t>(out.pitch_bytes / sizeof(float)), stream_);
      }
    }
    // The outcome's copies, read by collect() once the event has completed.
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(records_host_.as<seq::ShiftRecord>() + in_flight,
                                        records_.as<seq::ShiftRecord>() + slot, sizeof(seq::ShiftRecord),
                                        cudaMemcpyDeviceToHost, stream_));
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(weights_host_.as<seq::WhiteningWeights>() + in_flight, weights_.data(),
                                        sizeof(seq::WhiteningWeights), cudaMemcpyDeviceToHost, stream_));
    if (setup_.whitened_to_host) {
      const ImageView out = whitened_.view();
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(whitened_host_.as<float>() + static_cast<std::size_t>(in_flight) *
                                                                             out.width * out.height,
                                            sizeof(float) * out.width, out.data, out.pitch_bytes,
                                            sizeof(float) * out.width, out.height, cudaMemcpyDeviceToHost, stream_));
    }
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_[in_flight], stream_));
    pending_.push_back({pushed_, in_flight, candidate, full});
    ++pushed_;

    if (candidate) {
      // Choosing the reference: wait for this frame's check (once per sequence, not per frame).
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[in_flight]));
      has_reference_ = records_host_.as<seq::ShiftRecord>()[in_flight].status ==
                       static_cast<int>(seq::ShiftStatus::Reference);
    }
  }

  std::optional<FrameOutcome> collect(bool wait) override {
    if (ready_.empty() && !pending_.empty()) finish_oldest(wait);
    if (ready_.empty()) return std::nullopt;
    FrameOutcome outcome = std::move(ready_.front());
    ready_.pop_front();
    return outcome;
  }

  Views latest() const override {
    Views v;
    v.raw = latest_raw_;
    v.filtered = latest_filtered_;
    v.whitened = whitened_.view();
    return v;
  }

 private:
  struct Pending {
    long long index;
    int in_flight;
    bool candidate;
    bool history_full;
  };

  ImageView slot_view(int slot) const {
    ImageView v = ring_.view();
    v.data = static_cast<char*>(v.data) + static_cast<std::size_t>(slot) * setup_.height * v.pitch_bytes;
    v.height = setup_.height;
    return v;
  }

  // Moves the oldest pending frame's outcome to ready_ (waiting for it when `wait`).
  void finish_oldest(bool wait) {
    const Pending p = pending_.front();
    if (wait) {
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[p.in_flight]));
    } else {
      const cudaError_t state = cudaEventQuery(done_[p.in_flight]);
      if (state == cudaErrorNotReady) return;
      GAUSSLAB_CUDA_CHECK(state);
    }
    FrameOutcome outcome;
    outcome.index = p.index;
    outcome.shift = records_host_.as<seq::ShiftRecord>()[p.in_flight];
    outcome.reference_candidate = p.candidate;
    outcome.whitened = p.history_full && !weights_host_.as<seq::WhiteningWeights>()[p.in_flight].skip;
    if (setup_.whitened_to_host) {
      outcome.whitened_frame = ImageF32(setup_.width, setup_.height);
      const float* src = whitened_host_.as<float>() + static_cast<std::size_t>(p.in_flight) * setup_.width * setup_.height;
      std::copy(src, src + outcome.whitened_frame.pixel_count(), outcome.whitened_frame.data());
    }
    pending_.pop_front();
    ready_.push_back(std::move(outcome));
  }

  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_[kInFlight] = {};
  int slots_ = 1;
  DeviceImage ring_, raw_, reference_mean_, whitened_;
  seq::SequenceScratchSizes sizes_;
  DeviceBuffer column_partials_, row_partials_, profiles_, high_passed_, reference_profiles_, offset_, fine_partials_,
      records_, weights_;
  PinnedBuffer records_host_, weights_host_, whitened_host_;
  ImageView latest_raw_, latest_filtered_;
  bool has_reference_ = false;
  std::deque<Pending> pending_;
  std::deque<FrameOutcome> ready_;
};

}  // namespace

std::unique_ptr<SequenceEngine> make_gpu_sequence_engine() { return std::make_unique<GpuSequenceEngine>(); }

}  // namespace gausslab
