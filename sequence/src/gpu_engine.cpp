// The GPU engine: the kernels of cuda/sequence_kernels.hpp on one stream, the history in a ring of
// N + 1 device frames (each frame uploaded once, read once by each whitening that uses it).
//
// One frame, all queued without waiting:
//   upload (into its ring slot, or a raw buffer when pre-filtering) → pre-filter (any GPU method)
//   → projections → profiles → coarse search → fine sums → solve (shift, then weights; the shift
//   and the skip flag go straight to mapped host memory) → whitening (reads the frame and the N
//   history frames once) → (CLI only) a copy of the whitened frame to pinned memory → an event.
// The host reads a frame's results once its event has completed (collect), up to N + 1 frames
// later. Only the choice of the reference waits, once per sequence. With cuda_graphs, everything
// after the upload is one graph launch per frame (a graph per ring position: the kernels'
// arguments repeat with the ring).
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
    pushed_ = 0;
    uploaded_ = false;
    pending_.clear();
    ready_.clear();
    has_reference_ = false;
    graphs_failed_ = false;
    const int w = setup.width, h = setup.height;
    slots_ = setup.settings.history + 1;
    max_in_flight_ = setup.whitened_to_host ? std::min(slots_, kWhitenedCopies) : slots_;
    ring_.resize(w, h * slots_, PixelFormat::F32);
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
    records_.resize(sizeof(seq::ShiftRecord) * slots_);
    weights_.resize(sizeof(seq::WhiteningWeights));
    results_.resize(sizeof(seq::FrameResult) * slots_, /*mapped=*/true);
    whitened_host_.resize(setup.whitened_to_host ? sizeof(float) * w * h * kWhitenedCopies : 0);
    done_.assign(slots_, nullptr);
    for (cudaEvent_t& e : done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    graphs_.assign(slots_, nullptr);
    const std::vector<seq::ShiftRecord> missing(slots_);
    GAUSSLAB_CUDA_CHECK(cudaMemcpyAsync(records_.data(), missing.data(), sizeof(seq::ShiftRecord) * slots_,
                                        cudaMemcpyHostToDevice, stream_));
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
    latest_raw_ = setup_.prefilter ? raw_.view() : filtered;
    latest_filtered_ = filtered;

    if (setup_.cuda_graphs && !timer && !candidate && full && !graphs_failed_) {
      if (!graphs_[phase]) capture_graph(phase, candidate, full);
      if (graphs_[phase]) {
        GAUSSLAB_CUDA_CHECK(cudaGraphLaunch(graphs_[phase], stream_));
      } else {
        enqueue_frame(phase, candidate, full, nullptr);
      }
    } else {
      enqueue_frame(phase, candidate, full, timer);
    }

    if (setup_.whitened_to_host) {
      const ImageView out = whitened_.view();
      float* host = whitened_host_.as<float>() +
                    static_cast<std::size_t>(pushed_ % kWhitenedCopies) * out.width * out.height;
      GAUSSLAB_CUDA_CHECK(cudaMemcpy2DAsync(host, sizeof(float) * out.width, out.data, out.pitch_bytes,
                                            sizeof(float) * out.width, out.height, cudaMemcpyDeviceToHost, stream_));
    }
    GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_[phase], stream_));
    pending_.push_back({pushed_, candidate, full});
    ++pushed_;

    if (candidate) {
      // Choosing the reference: wait for this frame's check (once per sequence, not per frame).
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[phase]));
      has_reference_ = results_.as<seq::FrameResult>()[phase].shift.status ==
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
    bool candidate;
    bool history_full;
  };

  ImageView slot_view(int slot) const {
    ImageView v = ring_.view();
    v.data = static_cast<char*>(v.data) + static_cast<std::size_t>(slot) * setup_.height * v.pitch_bytes;
    v.height = setup_.height;
    return v;
  }

  // Everything after the upload for the frame in ring slot `phase`. With a timer each step is a
  // stage; without one (and inside a graph capture) the same launches run unrecorded.
  void enqueue_frame(int phase, bool candidate, bool full, StageTimer* timer) {
    const ImageView filtered = slot_view(phase);
    if (setup_.prefilter) {
      ScopedStage stage(timer, "pre-filter", stream_);
      setup_.prefilter->run(raw_.view(), filtered, nullptr, stream_);
    }
    seq::HistoryArgs past;
    past.count = full ? setup_.settings.history : 0;
    for (int j = 0; j < past.count; ++j) {
      past.slots[j] = static_cast<int>(((phase - 1 - j) % slots_ + slots_) % slots_);
      past.frames[j] = static_cast<const float*>(slot_view(past.slots[j]).data);
    }
    const seq::GreyView f = grey(filtered);
    const seq::GreyView r = grey(reference_mean_.view());
    double* columns = profiles_.as<double>();
    double* rows = columns + f.width;
    double* ref_columns = reference_profiles_.as<double>();
    double* ref_rows = ref_columns + f.width;
    const int2* offset = candidate ? nullptr : offset_.as<int2>();
    {
      ScopedStage stage(timer, "shifts", stream_);
      seq::launch_projection_partials(f, column_partials_.as<float>(), row_partials_.as<float>(), stream_);
      seq::launch_profiles(column_partials_.as<float>(), row_partials_.as<float>(), f.width, f.height, columns, rows,
                           stream_);
      if (candidate) {
        seq::launch_local_mean(f, reference_mean_.view().row<float>(0), r.stride, stream_);
        seq::launch_reference_profiles(columns, rows, f.width, f.height, ref_columns, ref_rows, stream_);
      } else {
        seq::launch_coarse_search(columns, rows, ref_columns, ref_rows, f.width, f.height,
                                  setup_.settings.search_radius, high_passed_.as<double>(), offset_.as<int2>(),
                                  stream_);
      }
      seq::launch_fine_sums(r, f, offset, fine_partials_.as<double>(), sizes_.fine_blocks, stream_);
    }
    {
      ScopedStage stage(timer, "coefficients", stream_);
      seq::launch_solve(fine_partials_.as<double>(), sizes_.fine_blocks, offset, f.width, f.height, candidate,
                        records_.as<seq::ShiftRecord>(), phase, past, setup_.settings.degree, setup_.settings.gamma,
                        weights_.as<seq::WhiteningWeights>(),
                        static_cast<seq::FrameResult*>(results_.device_pointer()) + phase, stream_);
    }
    if (full) {
      ScopedStage stage(timer, "whitening", stream_);
      const ImageView out = whitened_.view();
      seq::launch_whiten(f, past, weights_.as<seq::WhiteningWeights>(), out.row<float>(0),
                         static_cast<std::ptrdiff_t>(out.pitch_bytes / sizeof(float)), stream_);
    }
  }

  // Captures enqueue_frame for this ring position; on any failure (a pre-filter that cannot be
  // captured, ...) graphs are turned off for the sequence and the frame runs launch by launch.
  void capture_graph(int phase, bool candidate, bool full) {
    GAUSSLAB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    bool enqueued = true;
    try {
      enqueue_frame(phase, candidate, full, nullptr);
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
    outcome.whitened = p.history_full && !result.skip;
    if (setup_.whitened_to_host) {
      outcome.whitened_frame = ImageF32(setup_.width, setup_.height);
      const float* src = whitened_host_.as<float>() +
                         static_cast<std::size_t>(p.index % kWhitenedCopies) * setup_.width * setup_.height;
      std::copy(src, src + outcome.whitened_frame.pixel_count(), outcome.whitened_frame.data());
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
  int slots_ = 1, max_in_flight_ = 1;
  bool uploaded_ = false;
  DeviceImage ring_, raw_, reference_mean_, whitened_;
  seq::SequenceScratchSizes sizes_;
  DeviceBuffer column_partials_, row_partials_, profiles_, high_passed_, reference_profiles_, offset_, fine_partials_,
      records_, weights_;
  PinnedBuffer results_, whitened_host_;
  ImageView latest_raw_, latest_filtered_;
  bool has_reference_ = false;
  std::deque<Pending> pending_;
  std::deque<FrameOutcome> ready_;
};

}  // namespace

std::unique_ptr<SequenceEngine> make_gpu_sequence_engine() { return std::make_unique<GpuSequenceEngine>(); }

}  // namespace gausslab
