// The GPU engine: the kernels of cuda/sequence_kernels.hpp on one stream, the history in a ring of
// N + 1 device frames (each frame uploaded once, read once by each whitening that uses it), with
// per slot its shift record, high-passed profiles and coarse image, and the engine's state
// (segment, reference, the history's residuals) in device memory.
//
// One frame, all queued without waiting (the CPU engine's steps, in its order):
//   upload (into its ring slot, or a raw buffer when pre-filtering) → pre-filter (any GPU method)
//   → projections and block sums → profiles → coarse image → coarse scores (against the
//   reference, and the previous frame when it did not match) → decision and integer search → (on
//   a cut) the new reference's local mean → fine sums → solve (shift, verdict, weights; the
//   backward job's weights when due) → (correlation weights) D and its solve → whitening with
//   the residual statistics (and the backward job) → the residual's verdict (the result goes
//   straight to mapped host memory) → target removal → (CLI only) a copy of the whitened frame to
//   pinned memory → an event.
// The host reads a frame's results once its event has completed (collect), up to N + 1 frames
// later. Only the choice of the first reference waits, once per sequence; a scene cut's new
// reference is chosen on the device. With cuda_graphs, everything after the upload is one graph
// launch per frame (a graph per ring position: the kernels' arguments repeat with the ring).
#include <algorithm>
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

constexpr int kWhitenedCopies = 4;  // pinned whitened frames for collect(), when asked for

seq::GreyView grey(const ImageView& v) {
  return {static_cast<const float*>(v.data), v.width, v.height,
          static_cast<std::ptrdiff_t>(v.pitch_bytes / sizeof(float))};
}

std::ptrdiff_t stride_of(const ImageView& v) { return static_cast<std::ptrdiff_t>(v.pitch_bytes / sizeof(float)); }

seq::FrameSettings frame_settings(const SequenceSettings& s) {
  seq::FrameSettings f;
  f.history = s.history;
  f.degree = s.degree;
  f.gamma = s.gamma;
  f.search_radius = s.search_radius;
  f.min_match = s.min_match;
  f.max_residual = s.max_residual;
  f.target_threshold = s.target_threshold;
  return f;
}

class GpuSequenceEngine final : public SequenceEngine {
 public:
  GpuSequenceEngine() { GAUSSLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~GpuSequenceEngine() override {
    if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamSynchronize(stream_));
    release_events_and_graphs();
    if (stream_) GAUSSLAB_CUDA_LOG(cudaStreamDestroy(stream_));
  }
  GpuSequenceEngine(const GpuSequenceEngine&) = delete;
  GpuSequenceEngine& operator=(const GpuSequenceEngine&) = delete;

  SequenceBackend backend() const override { return SequenceBackend::Gpu; }
  cudaStream_t stream() const override { return stream_; }
  int frames_in_flight() const override { return static_cast<int>(pending_.size() + ready_.size()); }

  void begin(const SequenceSetup& setup) override {
    if (std::string problem = validate(setup, SequenceBackend::Gpu); !problem.empty())
      throw std::invalid_argument(problem);
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // nothing of the old sequence in flight
    release_events_and_graphs();
    setup_ = setup;
    settings_ = frame_settings(setup.settings);
    pushed_ = 0;
    reset_outcomes();
    uploaded_ = false;
    pending_.clear();
    ready_.clear();
    has_reference_ = false;
    graphs_failed_ = false;
    const int w = setup.width, h = setup.height;
    slots_ = setup.settings.history + 1;
    max_in_flight_ = setup.whitened_to_host ? std::min(slots_, kWhitenedCopies) : slots_;
    geometry_ = seq::coarse_geometry(w, h);
    coarse_doubles_ = seq::coarse_image_doubles(geometry_);
    ring_.resize(w, h * slots_, PixelFormat::F32);
    if (setup.prefilter) raw_.resize(w, h, PixelFormat::F32);
    if (setup.keep_views) view_.resize(w, h, PixelFormat::F32);
    reference_mean_.resize(w, h, PixelFormat::F32);
    whitened_.resize(w, h, PixelFormat::F32);
    backward_.resize(w, h, PixelFormat::F32);
    GAUSSLAB_CUDA_CHECK(cudaMemset2DAsync(whitened_.view().data, whitened_.view().pitch_bytes, 0,
                                          sizeof(float) * w, h, stream_));
    sizes_ = seq::sequence_scratch_sizes(w, h);
    column_partials_.resize(sizeof(float) * sizes_.column_partials);
    row_partials_.resize(sizeof(float) * sizes_.row_partials);
    block_sums_.resize(sizeof(float) * std::max(sizes_.block_sums, 1));
    profiles_.resize(sizeof(double) * (w + h));
    slot_profiles_.resize(sizeof(double) * (w + h) * slots_);
    reference_profiles_.resize(sizeof(double) * (w + h));
    slot_coarse_.resize(sizeof(double) * coarse_doubles_ * slots_);
    reference_coarse_.resize(sizeof(double) * coarse_doubles_);
    scores_.resize(sizeof(double) * 2 * geometry_.lag_count());
    fine_partials_.resize(sizeof(double) * seq::kSumCount * sizes_.fine_blocks);
    records_.resize(sizeof(seq::ShiftRecord) * slots_);
    state_.resize(sizeof(seq::SequenceState));
    weights_.resize(sizeof(seq::WhiteningWeights));
    backward_weights_.resize(sizeof(seq::WhiteningWeights));
    if (setup.settings.weights == WeightMethod::Correlation)
      gram_partials_.resize(sizeof(double) * seq::gram_partial_stride(setup.settings.history) * sizes_.gram_blocks);
    stats_.resize(2 * sizeof(seq::ResidualStats));
    cores_.resize(seq::target_removal_bytes(w, h));
    results_.resize(sizeof(seq::FrameResult) * slots_, /*mapped=*/true);
    whitened_host_.resize(setup.whitened_to_host ? sizeof(float) * w * h * kWhitenedCopies : 0);
    done_.assign(slots_, nullptr);
    for (cudaEvent_t& e : done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    graphs_.assign(slots_, nullptr);
    const std::vector<seq::ShiftRecord> missing(slots_);
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(records_.data(), missing.data(), sizeof(seq::ShiftRecord) * slots_,
                                        cudaMemcpyHostToDevice, stream_));
    const seq::SequenceState start;
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(state_.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream_));
    GAUSSLAB_CUDA_CHECK(cudaMemsetAsync(stats_.data(), 0, 2 * sizeof(seq::ResidualStats), stream_));
    const seq::WhiteningWeights none;
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(backward_weights_.data(), &none, sizeof none, cudaMemcpyHostToDevice, stream_));
    if (setup.prefilter) setup.prefilter->prepare({w, h, PixelFormat::F32, setup.prefilter_params});
    GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void upload(const ConstImageView& frame, StageTimer* timer) override {
    if (frame.width != setup_.width || frame.height != setup_.height || frame.format != PixelFormat::F32)
      throw std::invalid_argument("upload: the frame is not a grey float image of the sequence's size");
    if (uploaded_) throw std::logic_error("upload: the previous frame was not processed");
    // Its result slot and event are reused now: the frame max_in_flight_ back must be done.
    if (static_cast<int>(pending_.size()) >= max_in_flight_) finish_oldest(true);
    const ImageView slot = slot_view(static_cast<int>(pushed_ % slots_));
    ScopedStage stage(timer, "upload", stream_);
    copy_image_async(frame, setup_.prefilter ? raw_.view() : slot, cudaMemcpyHostToDevice, stream_);
    uploaded_ = true;
  }

  void process(StageTimer* timer) override {
    if (!uploaded_) throw std::logic_error("process: no frame was uploaded");
    uploaded_ = false;
    const int phase = static_cast<int>(pushed_ % slots_);
    const bool candidate = !has_reference_;
    const bool full = pushed_ >= setup_.settings.history;
    const ImageView filtered = slot_view(phase);
    latest_filtered_ = setup_.keep_views ? view_.view() : filtered;
    latest_raw_ = setup_.prefilter ? raw_.view() : latest_filtered_;

    if (setup_.cuda_graphs && !timer && !candidate && full && !graphs_failed_) {
      if (!graphs_[phase]) capture_graph(phase);
      if (graphs_[phase]) {
        GAUSSLAB_CUDA_CHECK(cudaGraphLaunch(graphs_[phase], stream_));
      } else {
        enqueue_frame(phase, candidate, nullptr);
      }
    } else {
      enqueue_frame(phase, candidate, timer);
    }

    if (setup_.whitened_to_host) {
      const ImageView out = whitened_.view();
      float* host = whitened_host_.as<float>() +
                    static_cast<std::size_t>(pushed_ % kWhitenedCopies) * out.width * out.height;
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(host, sizeof(float) * out.width, out.data, out.pitch_bytes,
                                            sizeof(float) * out.width, out.height, cudaMemcpyDeviceToHost, stream_));
    }
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_[phase], stream_));
    pending_.push_back({pushed_, candidate});
    ++pushed_;

    if (candidate) {
      // Choosing the first reference: wait for this frame's check (once per sequence, not per frame).
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[phase]));
      has_reference_ = results_.as<seq::FrameResult>()[phase].shift.status ==
                       static_cast<int>(seq::ShiftStatus::Reference);
    }
  }

  Views latest() const override {
    Views v;
    v.raw = latest_raw_;
    v.filtered = latest_filtered_;
    v.whitened = whitened_.view();
    return v;
  }

 protected:
  std::optional<FrameOutcome> take_processed(bool wait) override {
    if (ready_.empty() && !pending_.empty()) finish_oldest(wait);
    if (ready_.empty()) return std::nullopt;
    FrameOutcome outcome = std::move(ready_.front());
    ready_.pop_front();
    return outcome;
  }

 private:
  struct Pending {
    long long index;
    bool candidate;
  };

  ImageView slot_view(int slot) const {
    ImageView v = ring_.view();
    v.data = static_cast<char*>(v.data) + static_cast<std::size_t>(slot) * setup_.height * v.pitch_bytes;
    v.height = setup_.height;
    return v;
  }
  double* slot_profiles(int slot) const {
    return slot_profiles_.as<double>() + static_cast<std::size_t>(slot) * (setup_.width + setup_.height);
  }
  double* slot_coarse(int slot) const {
    return slot_coarse_.as<double>() + static_cast<std::size_t>(slot) * coarse_doubles_;
  }
  int slot_back(int phase, int frames) const { return ((phase - frames) % slots_ + slots_) % slots_; }

  // Everything after the upload for the frame in ring slot `phase`. With a timer each step is a
  // stage; without one (and inside a graph capture) the same launches run unrecorded.
  void enqueue_frame(int phase, bool candidate, StageTimer* timer) {
    const ImageView filtered = slot_view(phase);
    if (setup_.prefilter) {
      ScopedStage stage(timer, "pre-filter", stream_);
      setup_.prefilter->run(raw_.view(), filtered, nullptr, stream_);
    }
    if (setup_.keep_views)  // the displays' copy, before the frame's targets are replaced
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(view_.view().data, view_.view().pitch_bytes, filtered.data,
                                            filtered.pitch_bytes, sizeof(float) * setup_.width, setup_.height,
                                            cudaMemcpyDeviceToDevice, stream_));
    const int history = setup_.settings.history;
    seq::HistoryArgs past;
    past.count = static_cast<int>(std::min<long long>(pushed_, history));
    for (int j = 0; j < past.count; ++j) {
      past.slots[j] = slot_back(phase, 1 + j);
      past.frames[j] = static_cast<const float*>(slot_view(past.slots[j]).data);
    }
    // The span of a backward job, should this frame clean one of its segment's first frames (the
    // device decides which): this frame and the history - 1 before it.
    seq::HistoryArgs span;
    const bool backward_possible = seq::early_frames(history) >= 1 && pushed_ >= seq::backward_offset(history) &&
                                   setup_.settings.target_threshold > 0.0;
    if (backward_possible) {
      span.count = static_cast<int>(std::min<long long>(pushed_ + 1, history));
      for (int j = 0; j < span.count; ++j) {
        span.slots[j] = slot_back(phase, j);
        span.frames[j] = static_cast<const float*>(slot_view(span.slots[j]).data);
      }
    }
    const int previous = slot_back(phase, 1);
    const int w = setup_.width, h = setup_.height;
    const seq::GreyView f = grey(filtered);
    const seq::GreyView r = grey(reference_mean_.view());
    double* columns = profiles_.as<double>();
    double* rows = columns + w;
    seq::SequenceState* state = state_.as<seq::SequenceState>();
    seq::ShiftRecord* records = records_.as<seq::ShiftRecord>();
    {
      ScopedStage stage(timer, "shifts", stream_);
      seq::launch_projection_partials(f, geometry_, column_partials_.as<float>(), row_partials_.as<float>(),
                                      block_sums_.as<float>(), stream_);
      seq::launch_profiles(column_partials_.as<float>(), row_partials_.as<float>(), w, h, columns, rows, stream_);
      seq::launch_coarse_prepare(block_sums_.as<float>(), geometry_, slot_coarse(phase), state, stream_);
      if (candidate) {
        seq::launch_local_mean(f, reference_mean_.view().row<float>(0), r.stride, stream_);
        seq::launch_candidate_profiles(columns, rows, w, h, slot_profiles(phase), reference_profiles_.as<double>(),
                                       stream_);
        seq::launch_fine_sums(r, f, nullptr, fine_partials_.as<double>(), sizes_.fine_blocks, stream_);
      } else {
        seq::launch_coarse_scores(slot_coarse(phase), reference_coarse_.as<double>(), slot_coarse(previous), geometry_,
                                  state, scores_.as<double>(), stream_);
        seq::launch_integer_search(scores_.as<double>(), geometry_, columns, rows, w, h, settings_, slot_profiles(phase),
                                   slot_profiles(previous), reference_profiles_.as<double>(), slot_coarse(previous),
                                   reference_coarse_.as<double>(), records, previous, state, stream_);
        seq::launch_cut_reference_mean(grey(slot_view(previous)), reference_mean_.view().row<float>(0), r.stride, state,
                                       stream_);
        seq::launch_fine_sums(r, f, state, fine_partials_.as<double>(), sizes_.fine_blocks, stream_);
      }
    }
    seq::WhiteningWeights* weights = weights_.as<seq::WhiteningWeights>();
    seq::WhiteningWeights* backward_weights = backward_weights_.as<seq::WhiteningWeights>();
    {
      ScopedStage stage(timer, "coefficients", stream_);
      seq::launch_solve(fine_partials_.as<double>(), sizes_.fine_blocks, w, h, candidate, settings_, records, phase,
                        past, span, slot_coarse(phase), reference_coarse_.as<double>(), coarse_doubles_, state,
                        weights, backward_weights, stream_);
      if (setup_.settings.weights == WeightMethod::Correlation && past.count > 0)
        seq::launch_correlation_weights(f, past, setup_.settings.gamma, weights, gram_partials_.as<double>(),
                                        sizes_.gram_blocks, stream_);
    }
    seq::ResidualStats* stats = stats_.as<seq::ResidualStats>();
    const ImageView out = whitened_.view(), back = backward_.view();
    {
      ScopedStage stage(timer, "whitening", stream_);
      seq::launch_whiten(f, past, weights, out.row<float>(0), stride_of(out), stats, false, stream_);
      if (backward_possible)
        seq::launch_whiten(f, span, backward_weights, back.row<float>(0), stride_of(back), stats + 1, true, stream_);
    }
    {
      ScopedStage stage(timer, "target removal", stream_);
      seq::launch_residual_verdict(weights, backward_weights, stats, stats + 1, settings_, records, phase, state,
                                   static_cast<seq::FrameResult*>(results_.device_pointer()) + phase, stream_);
      seq::launch_target_removal(f, out.row<float>(0), back.row<float>(0), stride_of(out), past, weights, span,
                                 backward_weights, cores_.as<unsigned char>(), state, backward_possible, stream_);
    }
  }

  // Captures enqueue_frame for this ring position; on any failure (a pre-filter that cannot be
  // captured, ...) graphs are turned off for the sequence and the frame runs launch by launch.
  void capture_graph(int phase) {
    GAUSSLAB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    bool enqueued = true;
    try {
      enqueue_frame(phase, false, nullptr);
    } catch (const std::exception&) {
      enqueued = false;
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made =
        enqueued && ended == cudaSuccess && graph ? cudaGraphInstantiate(&exec, graph, 0) : cudaErrorStreamCaptureInvalidated;
    if (graph) GAUSSLAB_CUDA_LOG(cudaGraphDestroy(graph));
    if (made != cudaSuccess) {
      cudaGetLastError();  // capture errors are not sticky; clear the last one
      graphs_failed_ = true;
      return;
    }
    graphs_[phase] = exec;
  }

  // Moves the oldest pending frame's outcome to ready_ (waiting for it when `wait`).
  void finish_oldest(bool wait) {
    const Pending p = pending_.front();
    const int phase = static_cast<int>(p.index % slots_);
    if (wait) {
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[phase]));
    } else {
      const cudaError_t state = cudaEventQuery(done_[phase]);
      if (state == cudaErrorNotReady) return;
      GAUSSLAB_CUDA_CHECK(state);
    }
    const seq::FrameResult& result = results_.as<seq::FrameResult>()[phase];
    FrameOutcome outcome;
    outcome.index = p.index;
    outcome.shift = result.shift;
    outcome.reference_candidate = p.candidate;
    outcome.whitened = result.whitened != 0;
    if (setup_.whitened_to_host) {
      outcome.whitened_frame = ImageF32(setup_.width, setup_.height);
      const float* src = whitened_host_.as<float>() +
                         static_cast<std::size_t>(p.index % kWhitenedCopies) * setup_.width * setup_.height;
      if (outcome.whitened) std::copy(src, src + outcome.whitened_frame.pixel_count(), outcome.whitened_frame.data());
    }
    pending_.pop_front();
    ready_.push_back(std::move(outcome));
  }

  void release_events_and_graphs() {
    for (cudaEvent_t e : done_)
      if (e) GAUSSLAB_CUDA_LOG(cudaEventDestroy(e));
    done_.clear();
    for (cudaGraphExec_t g : graphs_)
      if (g) GAUSSLAB_CUDA_LOG(cudaGraphExecDestroy(g));
    graphs_.clear();
  }

  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> done_;          // per ring position
  std::vector<cudaGraphExec_t> graphs_;    // per ring position, captured on first use
  bool graphs_failed_ = false;
  int slots_ = 1, max_in_flight_ = 1, coarse_doubles_ = 0;
  bool uploaded_ = false;
  seq::FrameSettings settings_;
  seq::CoarseGeometry geometry_;
  DeviceImage ring_, raw_, view_, reference_mean_, whitened_, backward_;
  seq::SequenceScratchSizes sizes_;
  DeviceBuffer column_partials_, row_partials_, block_sums_, profiles_, slot_profiles_, reference_profiles_,
      slot_coarse_, reference_coarse_, scores_, fine_partials_, records_, state_, weights_, backward_weights_,
      gram_partials_, stats_, cores_;
  PinnedBuffer results_, whitened_host_;
  ImageView latest_raw_, latest_filtered_;
  bool has_reference_ = false;
  std::deque<Pending> pending_;
  std::deque<FrameOutcome> ready_;
};

}  // namespace

std::unique_ptr<SequenceEngine> make_gpu_sequence_engine() { return std::make_unique<GpuSequenceEngine>(); }

}  // namespace gausslab
