#pragma once
// Per-stage timings of a frame, from CUDA event pairs (GPU stages) or a steady clock (host stages).
// GPU events are read a frame or more later with cudaEventQuery, so timing never stalls a frame.
#include <cuda_runtime.h>

#include <deque>
#include <string>
#include <vector>

namespace gausslab {

struct StageTiming {
  std::string name;     // "rows", "columns", "map", "upload", ...
  double last_ms = 0;   // the latest completed frame
  double median_ms = 0; // rolling median over the last `history` completed frames
};

class StageTimer {
 public:
  // ring_frames: frames that may be in flight before their events are recycled;
  // history: completed frames kept for the rolling medians.
  explicit StageTimer(int ring_frames = 4, int history = 60);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

  // Opens a new frame. If the oldest slot's events are still pending it is dropped (not waited for).
  void begin_frame();
  // Closes the frame: its events become pending and are read by a later poll (no total is recorded).
  void end_frame();

  // A GPU stage: events recorded on `stream` (must be called between begin_frame and end_frame).
  void begin(const char* stage, cudaStream_t stream);
  void end(cudaStream_t stream);
  // A host stage measured by the caller.
  void record_host(const char* stage, double ms);

  // Harvests every completed frame without blocking. Call once per frame (begin_frame does too).
  void poll();
  // Blocks until all recorded frames complete and harvests them (tests, benchmarks, --frames N).
  void flush();

  // Stages of the latest completed frame, in recording order, with their rolling medians.
  std::vector<StageTiming> stages() const;
  // Rolling median of the whole frame's GPU+host stage sum, ms (0 until a frame completes).
  double frame_median_ms() const;
  int completed_frames() const { return completed_frames_; }
  // Forgets history (after a parameter or method change, so medians describe the new setting).
  void reset_history();

 private:
  struct GpuStage {
    std::string name;
    cudaEvent_t start = nullptr, stop = nullptr;
  };
  struct HostStage {
    std::string name;
    double ms = 0;
  };
  struct Slot {
    std::vector<GpuStage> gpu;  // events are created once and reused
    int gpu_used = 0;
    std::vector<HostStage> host;
    std::vector<std::pair<bool, int>> order;  // (is GPU stage, index) in recording order
    bool pending = false;
  };
  struct Sample {
    std::vector<std::pair<std::string, double>> stages;
    double total_ms = 0;
  };
  bool harvest(Slot& slot, bool wait);

  std::vector<Slot> ring_;
  int current_ = -1;
  int history_;
  std::deque<Sample> samples_;
  int completed_frames_ = 0;
};

// Times a GPU stage for the enclosing scope; does nothing when timer is null.
class ScopedStage {
 public:
  ScopedStage(StageTimer* timer, const char* stage, cudaStream_t stream) : timer_(timer), stream_(stream) {
    if (timer_) timer_->begin(stage, stream_);
  }
  ~ScopedStage() {
    if (timer_) timer_->end(stream_);
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  StageTimer* timer_;
  cudaStream_t stream_;
};

}  // namespace gausslab
