// The CPU engine: the steps of core/sequence_cpu.hpp (OpenMP) on a ring of host frames. It is the
// reference the GPU engine is tested against and the path where there is no CUDA device.
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <vector>

#include "engines.hpp"
#include "gausslab/core/sequence_cpu.hpp"

namespace gausslab {

namespace {

using Clock = std::chrono::steady_clock;

// Records the time from construction to destruction as a host stage.
class HostStage {
 public:
  HostStage(StageTimer* timer, const char* name) : timer_(timer), name_(name), start_(Clock::now()) {}
  ~HostStage() {
    if (timer_) timer_->record_host(name_, std::chrono::duration<double, std::milli>(Clock::now() - start_).count());
  }
  HostStage(const HostStage&) = delete;
  HostStage& operator=(const HostStage&) = delete;

 private:
  StageTimer* timer_;
  const char* name_;
  Clock::time_point start_;
};

seq::GreyView grey(const ImageF32& image) {
  return {image.data(), image.width(), image.height(), image.width()};
}

class CpuSequenceEngine final : public SequenceEngine {
 public:
  SequenceBackend backend() const override { return SequenceBackend::Cpu; }

  void begin(const SequenceSetup& setup) override {
    if (std::string problem = validate(setup, SequenceBackend::Cpu); !problem.empty())
      throw std::invalid_argument(problem);
    setup_ = setup;
    pushed_ = 0;
    const int slots = setup.settings.history + 1;
    ring_.assign(slots, ImageF32(setup.width, setup.height));
    records_.assign(slots, seq::ShiftRecord{});
    raw_ = ImageF32(setup.width, setup.height);
    whitened_ = ImageF32(setup.width, setup.height);
    has_reference_ = false;
    uploaded_ = false;
    outcomes_.clear();
    if (setup.prefilter)
      setup.prefilter->prepare({setup.width, setup.height, PixelFormat::F32, setup.prefilter_params});
  }

  int frames_in_flight() const override { return static_cast<int>(outcomes_.size()); }

  void upload(const ConstImageView& frame, StageTimer* timer) override {
    if (frame.width != setup_.width || frame.height != setup_.height || frame.format != PixelFormat::F32)
      throw std::invalid_argument("upload: the frame is not a grey float image of the sequence's size");
    if (uploaded_) throw std::logic_error("upload: the previous frame was not processed");
    HostStage stage(timer, "upload");
    ImageF32& target = setup_.prefilter ? raw_ : ring_[pushed_ % ring_.size()];
    for (int y = 0; y < frame.height; ++y) std::memcpy(&target.at(0, y), frame.row<float>(y), sizeof(float) * frame.width);
    uploaded_ = true;
  }

  void process(StageTimer* timer) override {
    if (!uploaded_) throw std::logic_error("process: no frame was uploaded");
    uploaded_ = false;
    const int slots = static_cast<int>(ring_.size());
    const int slot = static_cast<int>(pushed_ % slots);
    ImageF32& filtered = ring_[slot];
    if (setup_.prefilter) {
      HostStage stage(timer, "pre-filter");
      setup_.prefilter->run(raw_.view(), filtered.view(), nullptr, nullptr);
    }
    latest_raw_ = setup_.prefilter ? &raw_ : &filtered;
    latest_filtered_ = &filtered;

    FrameOutcome outcome;
    outcome.index = pushed_;
    outcome.reference_candidate = !has_reference_;
    {
      HostStage stage(timer, "shifts");
      outcome.shift = has_reference_ ? seq::estimate_shift(grey(reference_mean_), reference_profiles_, grey(filtered),
                                                           setup_.settings.search_radius)
                                     : try_reference(filtered);
    }
    records_[slot] = outcome.shift;

    const int history = setup_.settings.history;
    seq::WhiteningWeights weights;  // skip = 1: not whitened
    if (pushed_ >= history) {
      HostStage stage(timer, "coefficients");
      std::vector<seq::ShiftRecord> past(history);
      for (int j = 0; j < history; ++j) past[j] = records_[(pushed_ - 1 - j) % slots];
      weights = seq::history_weights(outcome.shift, past.data(), history, setup_.settings.degree,
                                     setup_.settings.gamma);
    }
    {
      HostStage stage(timer, "whitening");
      std::vector<const float*> past(history, nullptr);
      for (int j = 0; j < history && pushed_ >= history; ++j) past[j] = ring_[(pushed_ - 1 - j) % slots].data();
      seq::whiten_frame(grey(filtered), past.data(), weights, whitened_.data(), whitened_.width());
    }
    outcome.whitened = !weights.skip;
    if (setup_.whitened_to_host) outcome.whitened_frame = whitened_;
    outcomes_.push_back(std::move(outcome));
    ++pushed_;
  }

  std::optional<FrameOutcome> collect(bool) override {
    if (outcomes_.empty()) return std::nullopt;
    FrameOutcome outcome = std::move(outcomes_.front());
    outcomes_.pop_front();
    return outcome;
  }

  Views latest() const override {
    Views v;
    if (latest_raw_) v.raw = latest_raw_->view();
    if (latest_filtered_) v.filtered = latest_filtered_->view();
    v.whitened = whitened_.view();
    return v;
  }

 private:
  // The first frame with 2D structure becomes the reference: its local mean, its profiles.
  seq::ShiftRecord try_reference(const ImageF32& frame) {
    ImageF32 mean(frame.width(), frame.height());
    seq::local_mean_image(grey(frame), mean.data(), mean.width());
    const seq::ShiftSums sums = seq::fine_sums(grey(mean), grey(frame), 0, 0);
    seq::ShiftRecord record = seq::solve_shift(sums, seq::fine_region(frame.width(), frame.height(), 0, 0).count(), 0, 0);
    if (record.status != static_cast<int>(seq::ShiftStatus::Estimated)) return record;
    record.status = static_cast<int>(seq::ShiftStatus::Reference);
    record.dx = record.dy = 0.0;
    reference_mean_ = std::move(mean);
    reference_profiles_ = seq::frame_profiles(grey(frame));
    has_reference_ = true;
    return record;
  }

  std::vector<ImageF32> ring_;
  std::vector<seq::ShiftRecord> records_;
  ImageF32 raw_, whitened_, reference_mean_;
  const ImageF32* latest_raw_ = nullptr;
  const ImageF32* latest_filtered_ = nullptr;
  seq::Profiles reference_profiles_;
  bool has_reference_ = false;
  bool uploaded_ = false;
  std::deque<FrameOutcome> outcomes_;
};

}  // namespace

std::unique_ptr<SequenceEngine> make_cpu_sequence_engine() { return std::make_unique<CpuSequenceEngine>(); }

}  // namespace gausslab
