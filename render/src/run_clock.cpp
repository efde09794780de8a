#include "gausslab/render/run_clock.hpp"

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

RunClock::~RunClock() { release(); }

void RunClock::release() {
  for (Pair& pair : ring_) {
    if (pair.start) GAUSSLAB_CUDA_LOG(cudaEventDestroy(pair.start));
    if (pair.stop) GAUSSLAB_CUDA_LOG(cudaEventDestroy(pair.stop));
    pair = Pair{};
  }
  open_ = -1;
}

bool RunClock::begin(std::uint64_t tag, cudaStream_t stream) {
  open_ = -1;
  Pair& pair = ring_[next_];
  if (pair.pending) return false;
  if (!pair.start) {
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&pair.start));
    GAUSSLAB_CUDA_CHECK(cudaEventCreate(&pair.stop));
  }
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(pair.start, stream));
  pair.tag = tag;
  open_ = static_cast<int>(next_);
  next_ = (next_ + 1) % ring_.size();
  return true;
}

void RunClock::end(cudaStream_t stream) {
  if (open_ < 0) return;
  Pair& pair = ring_[static_cast<std::size_t>(open_)];
  open_ = -1;
  GAUSSLAB_CUDA_CHECK(cudaEventRecord(pair.stop, stream));
  pair.pending = true;
}

std::vector<ClockReading> RunClock::poll() {
  std::vector<ClockReading> done;
  // Oldest first: the ring's order starting at next_.
  for (std::size_t k = 0; k < ring_.size(); ++k) {
    Pair& pair = ring_[(next_ + k) % ring_.size()];
    if (!pair.pending) continue;
    const cudaError_t state = cudaEventQuery(pair.stop);
    if (state == cudaErrorNotReady) continue;
    GAUSSLAB_CUDA_CHECK(state);
    float ms = 0;
    GAUSSLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, pair.start, pair.stop));
    pair.pending = false;
    done.push_back({pair.tag, ms});
  }
  return done;
}

}  // namespace gausslab
