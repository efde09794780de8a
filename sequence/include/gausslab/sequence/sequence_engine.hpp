#pragma once
// The whitening of an image sequence, one frame at a time, on the GPU or the CPU. Both engines run
// the same maths (core/sequence_maths.hpp): the shift of each frame against the reference (the
// first frame with 2D structure), the weights of the N previous frames from their shifts, and the
// frame minus the weighted history. The GPU engine queues a frame's work on its stream and returns;
// outcomes are collected a frame or more later, so no frame waits for the host.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/core/sequence_maths.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

struct SequenceSettings {
  int history = 20;        // N: previous frames that predict the background
  int degree = 2;          // n: degree of the weight polynomial in the frames' shifts
  double gamma = 0.01;     // γ: regularisation (0+: exact moment matching, large: plain mean)
  int search_radius = 8;   // coarse integer search, ±px per axis
};

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
};

// Empty when the setup can run on this backend; otherwise why not.
std::string validate(const SequenceSetup& setup, SequenceBackend backend);

// What became of one pushed frame.
struct FrameOutcome {
  long long index = 0;      // 0, 1, 2, ... in push order since begin()
  seq::ShiftRecord shift;   // dx, dy and status (Reference, Estimated, Degenerate)
  bool reference_candidate = false;  // there was no reference yet: the frame was tried as one
  bool whitened = false;    // the history was full and the frame had a usable shift
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

  // The outcome of the oldest frame not yet collected: with `wait` it waits for it; without, it
  // returns nothing while that frame is still running. Nothing when all were collected.
  virtual std::optional<FrameOutcome> collect(bool wait) = 0;

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
  SequenceSetup setup_;
  long long pushed_ = 0;
};

// Throws std::runtime_error when the backend cannot run here (the GPU engine without a device).
std::unique_ptr<SequenceEngine> create_sequence_engine(SequenceBackend backend);

// The GPU when there is a usable CUDA device, otherwise the CPU.
SequenceBackend default_sequence_backend();

}  // namespace gausslab
