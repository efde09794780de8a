#pragma once
// The whitening of an image sequence, one frame at a time, on the GPU or the CPU. Both engines run
// the same maths (core/sequence_*.hpp): the shift of each frame against the reference of its
// segment (a coarse search over the whole frame, an integer search around it, the sub-pixel
// step), whether the frame belongs (a significant match, a residual like the history's; a frame
// that does not match but whose successor matches it starts a new segment: a scene cut), the
// weights of the N previous frames of the segment (a polynomial in their shifts, or from their
// correlation matrix), the frame minus the weighted history, and the frame's targets (what stands
// above the prediction) replaced by the prediction before it joins the history. The GPU engine queues a frame's work
// on its stream and returns; outcomes are collected a frame or more later, so no frame waits for
// the host.
#include <cuda_runtime.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/core/sequence_verdict.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

enum class WeightMethod { Polynomial, Correlation };
const char* to_string(WeightMethod method);

struct SequenceSettings {
  int history = 20;        // N: previous frames that predict the background
  WeightMethod weights = WeightMethod::Polynomial;
  int degree = 2;          // n: degree of the weight polynomial in the frames' shifts
  double gamma = 0.01;     // γ: regularisation (polynomial: 0+ exact moment matching, large the plain mean;
                           // correlation: relative to the correlation matrix's mean diagonal)
  int search_radius = 8;   // the integer search, ±px around the coarse estimate (at least one coarse pixel)
  double min_match = seq::kDefaultMinMatch;          // significance a frame's coarse match needs
  double max_residual = seq::kDefaultMaxResidual;    // × the history's robust deviation: beyond, rejected
  double target_threshold = seq::kDefaultTargetThreshold;  // remove targets above this × the frame's deviation; 0: off
};
bool operator==(const SequenceSettings& a, const SequenceSettings& b);
inline bool operator!=(const SequenceSettings& a, const SequenceSettings& b) { return !(a == b); }

// Empty when valid; otherwise a message naming the value and the allowed range.
std::string validate(const SequenceSettings& settings);

enum class SequenceBackend { Gpu, Cpu };
const char* to_string(SequenceBackend backend);

struct SequenceSetup {
  int width = 0, height = 0;
  SequenceSettings settings;
  // Optional spatial pre-filter: a GPU method for the GPU engine, a CPU method for the CPU engine
  // (not owned; it must outlive the sequence). Shifts and whitening work on the filtered frames.
  Method* prefilter = nullptr;
  FilterParams prefilter_params;
  // Whether collect() returns each whitened frame in host memory (the CLI, the tests).
  bool whitened_to_host = true;
  // GPU engine: once the history is full, run each frame's kernels as a CUDA graph (one per ring
  // position, captured on first use), which cuts the launch cost that dominates small frames.
  // Frames processed with a StageTimer are launched kernel by kernel (a graph has no stages).
  bool cuda_graphs = false;
  // Whether latest().raw and .filtered must show the frame as read: the history frames have their
  // targets replaced by their prediction once whitened, so a display needs its own copy (one more
  // copy per frame).
  bool keep_views = false;
};

// Empty when the setup can run on this backend; otherwise why not.
std::string validate(const SequenceSetup& setup, SequenceBackend backend);

// What became of one pushed frame, all told.
enum class FrameVerdict {
  Used,           // matched: it predicts later frames (whitened once its segment's history is full)
  Reference,      // the reference of the first segment (shifts are relative to it)
  SegmentStart,   // a scene cut: the reference of a new segment; the history starts again from it
  NoMatch,        // left out: the shift search failed (no significant match, or no convergence)
  Rejected,       // left out: its whitened residual was far above the history's
  Degenerate,     // left out: no 2D structure (a flat frame)
  LoneReference,  // left out: a reference that no later frame matched before the next cut
};
const char* to_string(FrameVerdict verdict);
// Whether the frame does not belong (--strict makes each one an error).
bool left_out(FrameVerdict verdict);

struct FrameOutcome {
  long long index = 0;      // 0, 1, 2, ... in push order since begin()
  seq::ShiftRecord shift;   // dx, dy, status, flags, segment, match and residual statistics
  FrameVerdict verdict = FrameVerdict::Used;
  bool reference_candidate = false;  // there was no reference yet: the frame was tried as one
  bool whitened = false;    // the segment's history was full and the frame was used
  ImageF32 whitened_frame;  // with whitened_to_host: the whitened frame (zero when !whitened)
};

class SequenceEngine {
 public:
  virtual ~SequenceEngine() = default;
  virtual SequenceBackend backend() const = 0;

  // Starts a sequence: forgets the reference and the history. Throws std::invalid_argument with
  // validate()'s reason.
  virtual void begin(const SequenceSetup& setup) = 0;
  const SequenceSetup& setup() const { return setup_; }

  // Takes the next frame (host memory, grey float, the setup's size; pinned memory makes the GPU
  // upload asynchronous). Stages go to `timer` when given: upload, pre-filter, shifts,
  // coefficients, whitening. On the GPU it returns once the work is queued; while there is no
  // reference yet, it waits for the candidate's check (once per sequence, not per frame).
  // push() is upload() then process(); the benchmark times the two apart.
  void push(const ConstImageView& frame, StageTimer* timer) {
    upload(frame, timer);
    process(timer);
  }
  // Copies the next frame in (the "upload" stage); the GPU engine waits here only when the oldest
  // uncollected frame's results would be overwritten (frames_in_flight() at its limit). Throws std::invalid_argument for a frame of the wrong size or format.
  virtual void upload(const ConstImageView& frame, StageTimer* timer) = 0;
  // Everything else for the uploaded frame.
  virtual void process(StageTimer* timer) = 0;

  // The outcome of the oldest frame not yet collected, in push order. A frame that did not match
  // is given out once the next frame says whether it started a new segment, and a segment's
  // reference once a frame matched it (or the next cut came first). Without `wait` it returns
  // nothing while that is not known; with `wait` it waits for the engine, and when nothing more is
  // queued it decides with what there is (the end of the input). Nothing when all were collected.
  std::optional<FrameOutcome> collect(bool wait);

  // Frames pushed since begin() (the history is full once this reaches settings.history).
  long long frames_pushed() const { return pushed_; }
  // Frames queued whose outcome has not been collected.
  virtual int frames_in_flight() const = 0;

  // The latest pushed frame as the engine holds it: as read, after the pre-filter (the same as
  // `raw` without one) and whitened (zero before the history is full). Device memory for the GPU
  // engine, valid in the order of stream(); host memory for the CPU engine.
  struct Views {
    ConstImageView raw, filtered, whitened;
  };
  virtual Views latest() const = 0;
  // The stream the GPU engine works on (null for the CPU engine).
  virtual cudaStream_t stream() const { return nullptr; }

 protected:
  // The engine's outcome of the oldest frame processed and not yet taken (collect()'s contract
  // without the holding), its verdict not yet told.
  virtual std::optional<FrameOutcome> take_processed(bool wait) = 0;
  // For begin(): forgets the held outcomes.
  void reset_outcomes() { held_.clear(); }

  SequenceSetup setup_;
  long long pushed_ = 0;

 private:
  bool decided(std::size_t i) const;
  std::deque<FrameOutcome> held_;
};

// Throws std::runtime_error when the backend cannot run here (the GPU engine without a device).
std::unique_ptr<SequenceEngine> create_sequence_engine(SequenceBackend backend);

// The GPU when there is a usable CUDA device, otherwise the CPU.
SequenceBackend default_sequence_backend();

}  // namespace gausslab
