#include "gausslab/sequence/sequence_player.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/pinned_buffer.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

bool operator==(const PlayerSettings& a, const PlayerSettings& b) {
  return a.settings == b.settings && a.prefilter_id == b.prefilter_id &&
         (a.prefilter_id.empty() || a.prefilter_params == b.prefilter_params);
}

std::unique_ptr<FrameSource> open_player_input(const std::string& input, const SyntheticSpec& sky) {
  if (input == "synthetic") {
    if (std::string problem = validate(sky); !problem.empty()) throw SequenceInputError(problem);
    return open_synthetic(sky);
  }
  return open_sequence_input({input});
}

namespace {

// The engine's setup for frames of this size with these settings; the viewer shows device frames.
SequenceSetup setup_for(int width, int height, const PlayerSettings& settings, Method* prefilter) {
  SequenceSetup setup;
  setup.width = width;
  setup.height = height;
  setup.settings = settings.settings;
  setup.prefilter = prefilter;
  setup.prefilter_params = settings.prefilter_params;
  setup.whitened_to_host = false;
  setup.keep_views = true;  // A shows the frame as read, not as the history keeps it (targets replaced)
  return setup;
}

std::string frame_label(const SourceFrame& f) {
  const std::string plain = "frame " + std::to_string(f.index);
  return f.name == plain ? plain : plain + " (" + f.name + ")";
}

}  // namespace

// Frames go to the GPU from page-locked memory, so that the upload does not wait for the engine's
// earlier work (a copy from pageable memory would): two staging buffers, each reused once the
// upload from it two frames ago has completed.
class PinnedStaging {
 public:
  PinnedStaging() {
    for (cudaEvent_t& e : done_) GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~PinnedStaging() {
    for (cudaEvent_t e : done_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(e));
  }
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // A pinned copy of `frame`, valid until upload_queued() has been called twice more.
  ConstImageView stage(const ImageF32& frame) {
    next_ = 1 - next_;
    GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(done_[next_]));  // the upload two frames ago (long done)
    const std::size_t bytes = sizeof(float) * frame.pixel_count();
    if (buffers_[next_].size_bytes() < bytes) buffers_[next_].resize(bytes);
    std::memcpy(buffers_[next_].data(), frame.data(), bytes);
    return {buffers_[next_].data(), frame.width(), frame.height(), frame.pitch_bytes(), PixelFormat::F32};
  }
  void upload_queued(cudaStream_t stream) { GAUSSLAB_CUDA_CHECK(cudaEventRecord(done_[next_], stream)); }

 private:
  PinnedBuffer buffers_[2];
  cudaEvent_t done_[2] = {};
  int next_ = 0;
};

SequencePlayer::SequencePlayer(SequenceBackend backend)
    : backend_(backend),
      engine_(create_sequence_engine(backend)),
      display_a_(std::make_unique<GreyDisplayMethod>(backend, "frame", "the frame")),
      display_b_(std::make_unique<GreyDisplayMethod>(backend, "whitened", "the whitened frame")) {
  if (backend_ == SequenceBackend::Gpu) {
    GAUSSLAB_CUDA_CHECK(cudaEventCreateWithFlags(&frame_ready_, cudaEventDisableTiming));
    staging_ = std::make_unique<PinnedStaging>();
  }
}

SequencePlayer::~SequencePlayer() {
  try {
    synchronize();
  } catch (const std::exception&) {
  }
  staging_.reset();
  if (frame_ready_) GAUSSLAB_CUDA_LOG(cudaEventDestroy(frame_ready_));
}

void SequencePlayer::synchronize() {
  if (backend_ != SequenceBackend::Gpu) return;
  GAUSSLAB_CUDA_CHECK(cudaStreamSynchronize(engine_->stream()));
  for (const GreyDisplayMethod* d : {display_a_.get(), display_b_.get()})
    GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(d->read_done()));
}

void SequencePlayer::open(std::unique_ptr<FrameSource> source, std::string name, StageTimer* timer) {
  // The first frame that can be read gives the size and the display ranges.
  std::optional<SourceFrame> first;
  std::string first_error;
  for (int tries = 0; tries < source->frame_count() && !first; ++tries) {
    std::optional<SourceFrame> f = source->next();
    if (!f) break;
    if (f->error.empty()) first = std::move(f);
    else if (first_error.empty()) first_error = frame_label(*f) + ": " + f->error;
  }
  if (!first)
    throw SequenceInputError("no frame of " + name + " could be read" + (first_error.empty() ? "" : " (" + first_error + ")"));
  const SequenceSetup setup = setup_for(first->image.width(), first->image.height(), settings_, prefilter_.get());
  if (std::string problem = validate(setup, backend_); !problem.empty()) throw SequenceInputError(name + ": " + problem);

  synchronize();  // the displays may still read the buffers begin() replaces
  source_ = std::move(source);
  name_ = std::move(name);
  width_ = setup.width;
  height_ = setup.height;
  const int step = std::max(1, static_cast<int>(std::sqrt(static_cast<double>(width_) * height_ / 65536.0)));
  stats_ = frame_statistics(first->image, step);
  status_.clear();
  restart(timer);
}

void SequencePlayer::configure(const PlayerSettings& settings, StageTimer* timer) {
  if (std::string problem = validate(settings.settings); !problem.empty()) throw std::invalid_argument(problem);
  std::unique_ptr<Method> prefilter;
  if (!settings.prefilter_id.empty()) {
    const MethodEntry* entry = find_method(settings.prefilter_id);
    if (!entry) throw std::invalid_argument("unknown pre-filter '" + settings.prefilter_id + "'");
    if (std::string problem = validate(settings.prefilter_params); !problem.empty()) throw std::invalid_argument(problem);
    prefilter = entry->create();
  }
  if (is_open())
    if (std::string problem = validate(setup_for(width_, height_, settings, prefilter.get()), backend_); !problem.empty())
      throw std::invalid_argument(problem);
  synchronize();
  settings_ = settings;
  prefilter_ = std::move(prefilter);
  if (is_open()) restart(timer);
}

void SequencePlayer::restart(StageTimer* timer) {
  engine_->begin(setup_for(width_, height_, settings_, prefilter_.get()));
  pending_inputs_.clear();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  dx_.assign(std::max(source_->frame_count(), 1), nan);
  dy_.assign(dx_.size(), nan);
  source_->rewind();
  push_next(timer, false);
}

bool SequencePlayer::advance(bool loop, StageTimer* timer) { return is_open() && push_next(timer, loop); }

bool SequencePlayer::push_next(StageTimer* timer, bool loop) {
  bool rewound = false;
  for (int tries = 0; tries <= source_->frame_count() + 1; ++tries) {
    std::optional<SourceFrame> frame = source_->next();
    if (!frame) {
      if (!loop || rewound) return false;
      source_->rewind();
      rewound = true;
      continue;
    }
    if (!frame->error.empty()) {
      status_ = frame_label(*frame) + " cannot be read: " + frame->error + "; it is skipped";
      continue;
    }
    if (frame->image.width() != width_ || frame->image.height() != height_) {
      status_ = frame_label(*frame) + " is " + std::to_string(frame->image.width()) + "x" +
                std::to_string(frame->image.height()) + ", not " + std::to_string(width_) + "x" +
                std::to_string(height_) + ": it is skipped";
      continue;
    }
    if (backend_ == SequenceBackend::Gpu) {
      // This frame overwrites buffers that the displays of the previous one may still read.
      for (const GreyDisplayMethod* d : {display_a_.get(), display_b_.get()})
        GAUSSLAB_CUDA_CHECK(cudaStreamWaitEvent(engine_->stream(), d->read_done(), 0));
      engine_->push(staging_->stage(frame->image), timer);
      staging_->upload_queued(engine_->stream());
      GAUSSLAB_CUDA_CHECK(cudaEventRecord(frame_ready_, engine_->stream()));
    } else {
      engine_->push(frame->image.view(), timer);
    }
    pending_inputs_.push_back(frame->index);
    current_index_ = frame->index;
    current_name_ = frame->name;
    point_displays();
    return true;
  }
  status_ = "no frame of " + name_ + " could be read";
  return false;
}

void SequencePlayer::set_display(bool show_filtered, double whitened_range) {
  show_filtered_ = show_filtered;
  whitened_range_ = whitened_range;
  if (is_open()) point_displays();
}

void SequencePlayer::point_displays() {
  const SequenceEngine::Views views = engine_->latest();
  const cudaEvent_t ready = backend_ == SequenceBackend::Gpu ? frame_ready_ : nullptr;
  const GreyMapping stretch = stretch_mapping(stats_.low, stats_.high);
  display_a_->show(views.raw, stretch, ready);
  if (show_filtered_)
    display_b_->show(views.filtered, stretch, ready);
  else
    display_b_->show(views.whitened, signed_mapping(stats_.noise, whitened_range_), ready);
}

void SequencePlayer::collect(bool wait) {
  while (std::optional<FrameOutcome> o = engine_->collect(wait)) {
    if (pending_inputs_.empty()) break;
    const int input = pending_inputs_.front();
    pending_inputs_.pop_front();
    const auto status = static_cast<seq::ShiftStatus>(o->shift.status);
    const bool known = status == seq::ShiftStatus::Estimated || status == seq::ShiftStatus::Reference;
    if (input >= 0 && input < static_cast<int>(dx_.size())) {
      dx_[input] = known ? static_cast<float>(o->shift.dx) : std::numeric_limits<float>::quiet_NaN();
      dy_[input] = known ? static_cast<float>(o->shift.dy) : std::numeric_limits<float>::quiet_NaN();
    }
    const std::string label = "frame " + std::to_string(input);
    switch (o->verdict) {
      case FrameVerdict::Degenerate:
        status_ = label + " has no 2D structure (u*w - v^2 = 0): no shift, not whitened";
        break;
      case FrameVerdict::NoMatch:
        char text[96];
        std::snprintf(text, sizeof(text), " does not match the reference (significance %.1f): left out", o->shift.match);
        status_ = label + text;
        break;
      case FrameVerdict::Rejected:
        status_ = label + "'s residual is far above the history's: left out";
        break;
      case FrameVerdict::LoneReference:
        status_ = label + " was the reference, but no frame matched it: left out";
        break;
      case FrameVerdict::SegmentStart:
        status_ = "a scene cut at " + label + ": the history starts again from it";
        break;
      default:
        break;
    }
  }
}

}  // namespace gausslab
