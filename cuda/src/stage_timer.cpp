#include "gausslab/cuda/stage_timer.hpp"

#include <algorithm>
#include <stdexcept>

#include "gausslab/core/statistics.hpp"
#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

StageTimer::StageTimer(int ring_frames, int history) : ring_(std::max(ring_frames, 2)), history_(std::max(history, 1)) {}

StageTimer::~StageTimer() {
  for (Slot& slot : ring_)
    for (GpuStage& stage : slot.gpu) {
      if (stage.start) GAUSSLAB_CUDA_LOG(cudaEventDestroy(stage.start));
      if (stage.stop) GAUSSLAB_CUDA_LOG(cudaEventDestroy(stage.stop));
    }
}

void StageTimer::begin_frame() {
  poll();
  current_ = (current_ + 1) % static_cast<int>(ring_.size());
  Slot& slot = ring_[current_];
  // Still pending after a whole ring of frames: drop its numbers rather than wait for them.
  slot.pending = false;
  slot.gpu_used = 0;
  slot.host.clear();
  slot.order.clear();
}

void StageTimer::end_frame() {
  if (current_ < 0) return;
  ring_[current_].pending = true;
}

void StageTimer::begin(const char* stage, cudaStream_t stream) {
  if (current_ < 0) throw std::logic_error("StageTimer::begin outside a frame");
  Slot& slot = ring_[current_];
  if (slot.gpu_used == static_cast<int>(slot.gpu.size())) {
    GpuStage fresh;
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&fresh.start));
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&fresh.stop));
    slot.gpu.push_back(fresh);
  }
  GpuStage& gpu = slot.gpu[slot.gpu_used++];
  gpu.name = stage;
  slot.order.emplace_back(true, slot.gpu_used - 1);
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(gpu.start, stream));
}

void StageTimer::end(cudaStream_t stream) {
  if (current_ < 0) return;
  Slot& slot = ring_[current_];
  if (slot.gpu_used == 0) return;
  // Called from ScopedStage's destructor: log rather than throw.
  GAUSSLAB_CUDA_LOG(cudaEventRecord(slot.gpu[slot.gpu_used - 1].stop, stream));
}

void StageTimer::record_host(const char* stage, double ms) {
  if (current_ < 0) throw std::logic_error("StageTimer::record_host outside a frame");
  Slot& slot = ring_[current_];
  slot.host.push_back({stage, ms});
  slot.order.emplace_back(false, static_cast<int>(slot.host.size()) - 1);
}

bool StageTimer::harvest(Slot& slot, bool wait) {
  std::vector<std::pair<std::string, double>> gpu_times;
  for (int i = 0; i < slot.gpu_used; ++i) {
    GpuStage& stage = slot.gpu[i];
    if (wait) {
      GAUSSLAB_CUDA_CHECK(cudaEventSynchronize(stage.stop));
    } else {
      const cudaError_t state = cudaEventQuery(stage.stop);
      if (state == cudaErrorNotReady) return false;
      GAUSSLAB_CUDA_CHECK(state);
    }
    float ms = 0.0f;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, stage.start, stage.stop));
    gpu_times.emplace_back(stage.name, ms);
  }
  Sample sample;
  for (const auto& [is_gpu, index] : slot.order)
    sample.stages.push_back(is_gpu ? gpu_times[index] : std::make_pair(slot.host[index].name, slot.host[index].ms));
  for (const auto& stage : sample.stages) sample.total_ms += stage.second;
  samples_.push_back(std::move(sample));
  while (static_cast<int>(samples_.size()) > history_) samples_.pop_front();
  ++completed_frames_;
  slot.pending = false;
  return true;
}

void StageTimer::poll() {
  const int n = static_cast<int>(ring_.size());
  for (int i = 1; i <= n; ++i) {  // oldest first, so samples stay in frame order
    Slot& slot = ring_[(current_ + i + n) % n];
    if (slot.pending && !harvest(slot, false)) break;
  }
}

void StageTimer::flush() {
  const int n = static_cast<int>(ring_.size());
  for (int i = 1; i <= n; ++i) {
    Slot& slot = ring_[(current_ + i + n) % n];
    if (slot.pending) harvest(slot, true);
  }
}

std::vector<StageTiming> StageTimer::stages() const {
  std::vector<StageTiming> result;
  if (samples_.empty()) return result;
  for (const auto& [name, ms] : samples_.back().stages) {
    std::vector<double> history;
    for (const Sample& sample : samples_)
      for (const auto& stage : sample.stages)
        if (stage.first == name) history.push_back(stage.second);
    result.push_back({name, ms, median(history)});
  }
  return result;
}

double StageTimer::frame_median_ms() const {
  std::vector<double> totals;
  for (const Sample& sample : samples_) totals.push_back(sample.total_ms);
  return median(totals);
}

void StageTimer::reset_history() { samples_.clear(); }

}  // namespace gausslab
