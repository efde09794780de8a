// The CPU engine: the steps of core/sequence_cpu.hpp (OpenMP) on a ring of host frames, in the
// order the GPU engine's kernels take them. It is the reference the GPU engine is tested against
// and the path where there is no CUDA device.
//
// One frame: (pre-filter) → its coarse image and profiles → the coarse search against the
// segment's reference (and against the previous frame when that one did not match: a cut) → the
// integer search around the coarse estimate → the fine step → the verdict → the weights of the
// segment's history → whitening with the residual's statistics → the residual's verdict → the
// frame's targets replaced in its ring slot (and, near the end of a segment's fill, those of one of
// its first frames, whitened backwards from the frames after it: sequence_verdict.hpp).
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

seq::GreyView grey(const ImageF32& image) { return {image.data(), image.width(), image.height(), image.width()}; }

bool usable(const seq::ShiftRecord& r) { return seq::shift_usable(r); }

class CpuSequenceEngine final : public SequenceEngine {
 public:
  SequenceBackend backend() const override { return SequenceBackend::Cpu; }

  void begin(const SequenceSetup& setup) override {
    if (std::string problem = validate(setup, SequenceBackend::Cpu); !problem.empty())
      throw std::invalid_argument(problem);
    setup_ = setup;
    pushed_ = 0;
    reset_outcomes();
    const int slots = setup.settings.history + 1;
    ring_.assign(slots, ImageF32(setup.width, setup.height));
    records_.assign(slots, seq::ShiftRecord{});
    profiles_.assign(slots, seq::Profiles{});
    coarse_.assign(slots, seq::CoarseBuffers{});
    geometry_ = seq::coarse_geometry(setup.width, setup.height);
    raw_ = ImageF32(setup.width, setup.height);
    view_ = setup.keep_views ? ImageF32(setup.width, setup.height) : ImageF32();
    whitened_ = ImageF32(setup.width, setup.height);
    backward_ = ImageF32(setup.width, setup.height);
    state_ = seq::SequenceState{};
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
    const int previous = (slot + slots - 1) % slots;
    ImageF32& filtered = ring_[slot];
    if (setup_.prefilter) {
      HostStage stage(timer, "pre-filter");
      setup_.prefilter->run(raw_.view(), filtered.view(), nullptr, nullptr);
    }
    if (setup_.keep_views) view_ = filtered;  // before its targets are replaced

    FrameOutcome outcome;
    outcome.index = pushed_;
    outcome.reference_candidate = !has_reference_;
    seq::begin_frame(state_);
    seq::ShiftRecord record;
    {
      HostStage stage(timer, "shifts");
      coarse_[slot] = seq::coarse_image(grey(filtered), geometry_);
      profiles_[slot] = seq::frame_profiles(grey(filtered));
      record = has_reference_ ? estimate_shift(slot, previous) : try_reference(slot);
    }
    records_[slot] = record;

    const int history = setup_.settings.history;
    const int count = static_cast<int>(pushed_ < history ? pushed_ : history);
    std::vector<const float*> past(history, nullptr);
    std::vector<seq::ShiftRecord> past_records(history);
    for (int j = 0; j < count; ++j) {
      const int s = (slot + slots - 1 - j) % slots;
      past[j] = ring_[s].data();
      past_records[j] = records_[s];
    }
    const double k = setup_.settings.target_threshold;
    seq::WhiteningWeights weights, backward;  // skip = 1: not whitened
    std::vector<const float*> after;          // the backward job's history: the frames after its frame
    int backward_slot = -1;
    {
      HostStage stage(timer, "coefficients");
      weights = seq::history_weights(record, past_records.data(), count, setup_.settings.degree, setup_.settings.gamma,
                                     setup_.width, setup_.height);
      if (setup_.settings.weights == WeightMethod::Correlation && weights.used_count > 0)
        seq::apply_correlation_weights(grey(filtered), past.data(), setup_.settings.gamma, weights);
      const int target = usable(record) ? seq::backward_target(state_, record.frame, history) : -1;
      backward_slot = target >= 0 ? target % slots : 0;
      if (k > 0.0 && target >= 0 && records_[backward_slot].frame == target && usable(records_[backward_slot]) &&
          records_[backward_slot].segment == state_.segment)
        backward = backward_weights(slot, backward_slot, after);
    }
    seq::ResidualStats stats{}, backward_stats{};
    {
      HostStage stage(timer, "whitening");
      seq::whiten_frame(grey(filtered), past.data(), weights, whitened_.data(), whitened_.width(), &stats);
      if (!backward.skip)
        seq::whiten_frame(grey(ring_[backward_slot]), after.data(), backward, backward_.data(), backward_.width(),
                          &backward_stats);
    }
    {
      HostStage stage(timer, "target removal");
      double residual = 0.0;
      if (!weights.skip) {
        residual = seq::residual_deviation(stats);
        if (record.status == static_cast<int>(seq::ShiftStatus::Estimated))
          seq::residual_verdict(state_, record, residual, seq::residual_tail(stats, residual),
                                setup_.settings.max_residual);
      }
      // The targets of the frame (what stands out above its prediction) and of the early frame
      // cleaned backwards: replaced before they predict later frames.
      if (k > 0.0 && residual > 0.0 && record.status == static_cast<int>(seq::ShiftStatus::Estimated) &&
          seq::cleaned_as_it_comes(record, state_.segment_start, history))
        seq::remove_targets(filtered.data(), filtered.width(), whitened_.data(), whitened_.width(), setup_.width,
                            setup_.height, static_cast<float>(k * residual), past.data(), weights,
                            seq::median_replacement(record.frame, state_.segment_start, history));
      if (!backward.skip) {
        const double early_residual = seq::residual_deviation(backward_stats);
        if (early_residual > 0.0)
          seq::remove_targets(ring_[backward_slot].data(), setup_.width, backward_.data(), backward_.width(),
                              setup_.width, setup_.height, static_cast<float>(k * early_residual), after.data(),
                              backward, true);
      }
      records_[slot] = record;
    }
    seq::end_frame(state_, record);

    outcome.shift = record;
    outcome.whitened = seq::whitened_output(record, state_.segment_start, history, !weights.skip);
    if (setup_.whitened_to_host) {
      outcome.whitened_frame = ImageF32(setup_.width, setup_.height);
      if (outcome.whitened) outcome.whitened_frame = whitened_;
    }
    if (!outcome.whitened) std::fill(whitened_.data(), whitened_.data() + whitened_.pixel_count(), 0.0f);
    outcomes_.push_back(std::move(outcome));
    ++pushed_;
  }

  Views latest() const override {
    Views v;
    const ImageF32* shown = setup_.keep_views ? &view_ : latest_filtered();
    if (shown) {
      v.filtered = shown->view();
      v.raw = setup_.prefilter ? raw_.view() : shown->view();
    }
    v.whitened = whitened_.view();
    return v;
  }

 protected:
  std::optional<FrameOutcome> take_processed(bool) override {
    if (outcomes_.empty()) return std::nullopt;
    FrameOutcome outcome = std::move(outcomes_.front());
    outcomes_.pop_front();
    return outcome;
  }

 private:
  const ImageF32* latest_filtered() const {
    return pushed_ > 0 ? &ring_[(pushed_ - 1) % ring_.size()] : nullptr;
  }

  // The first frame with 2D structure becomes the reference of the first segment.
  seq::ShiftRecord try_reference(int slot) {
    const ImageF32& frame = ring_[slot];
    ImageF32 mean(frame.width(), frame.height());
    seq::local_mean_image(grey(frame), mean.data(), mean.width());
    const seq::ShiftSums sums = seq::fine_sums(grey(mean), grey(frame), 0, 0);
    seq::ShiftRecord record = seq::solve_shift(sums, seq::fine_region(frame.width(), frame.height(), 0, 0).count(), 0, 0);
    record.frame = state_.next_frame;
    if (record.status != static_cast<int>(seq::ShiftStatus::Estimated)) return record;
    seq::begin_segment(state_, record, slot);
    use_as_reference(slot, std::move(mean));
    has_reference_ = true;
    return record;
  }

  void use_as_reference(int slot, ImageF32 mean) {
    reference_mean_ = std::move(mean);
    reference_profiles_ = profiles_[slot];
    reference_coarse_ = coarse_[slot];
  }

  // The shift against the segment's reference; a cut makes the previous frame the new reference.
  seq::ShiftRecord estimate_shift(int slot, int previous) {
    const std::vector<double> scores = seq::coarse_scores(coarse_[slot].view(), reference_coarse_.view(), geometry_);
    const seq::CoarseMatch against_reference = seq::best_coarse_match(scores, geometry_);
    seq::CoarseMatch against_previous;
    if (state_.previous_failed)
      against_previous = seq::best_coarse_match(seq::coarse_scores(coarse_[slot].view(), coarse_[previous].view(), geometry_),
                                                geometry_);
    const seq::CoarseMatch match = seq::decide_match(state_, against_reference, against_previous,
                                                     state_.previous_failed != 0, setup_.settings.min_match);
    if (state_.cut) {
      seq::begin_segment(state_, records_[previous], previous);
      ImageF32 mean(setup_.width, setup_.height);
      seq::local_mean_image(grey(ring_[previous]), mean.data(), mean.width());
      use_as_reference(previous, std::move(mean));
    }
    const seq::Offset k = seq::integer_offset(profiles_[slot], reference_profiles_, match.centre_x, match.centre_y,
                                              seq::refine_radius(setup_.settings.search_radius, geometry_));
    if (k.at_edge) state_.flags |= seq::kFlagRefineEdge;
    const seq::ShiftSums sums = seq::fine_sums(grey(reference_mean_), grey(ring_[slot]), k.kx, k.ky);
    seq::ShiftRecord record =
        seq::solve_shift(sums, seq::fine_region(setup_.width, setup_.height, k.kx, k.ky).count(), k.kx, k.ky);
    seq::shift_verdict(state_, record);
    return record;
  }

  // The weights that predict the early frame in `target` from the frames after it (this one back
  // to it, polynomial weights), and those frames.
  seq::WhiteningWeights backward_weights(int slot, int target, std::vector<const float*>& frames) const {
    const int slots = static_cast<int>(ring_.size());
    std::vector<seq::ShiftRecord> shifts;
    for (int s = slot; s != target; s = (s + slots - 1) % slots) {
      frames.push_back(ring_[s].data());
      shifts.push_back(records_[s]);
    }
    return seq::history_weights(records_[target], shifts.data(), static_cast<int>(shifts.size()),
                                setup_.settings.degree, setup_.settings.gamma, setup_.width, setup_.height);
  }

  std::vector<ImageF32> ring_;
  std::vector<seq::ShiftRecord> records_;
  std::vector<seq::Profiles> profiles_;        // per ring slot: the frame's high-passed profiles
  std::vector<seq::CoarseBuffers> coarse_;     // per ring slot: the frame's prepared coarse image
  seq::CoarseGeometry geometry_;
  ImageF32 raw_, view_, whitened_, backward_, reference_mean_;
  seq::Profiles reference_profiles_;
  seq::CoarseBuffers reference_coarse_;
  seq::SequenceState state_;
  bool has_reference_ = false;
  bool uploaded_ = false;
  std::deque<FrameOutcome> outcomes_;
};

}  // namespace

std::unique_ptr<SequenceEngine> make_cpu_sequence_engine() { return std::make_unique<CpuSequenceEngine>(); }

}  // namespace gausslab
