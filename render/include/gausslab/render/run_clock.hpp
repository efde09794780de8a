#pragma once
// GPU times of tagged spans of a stream (a method's whole run, a frame's tiles of a sliced run):
// one CUDA event pair per span, from a ring created once (never per span), read when
// cudaEventQuery says both are done, so the host never waits (as StageTimer::poll).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace gausslab {

struct ClockReading {
  std::uint64_t tag = 0;
  double ms = 0;
};

class RunClock {
 public:
  explicit RunClock(int pairs = 32) : ring_(static_cast<std::size_t>(pairs)) {}
  ~RunClock();
  RunClock(const RunClock&) = delete;
  RunClock& operator=(const RunClock&) = delete;

  // Opens a span on `stream`; false (and nothing is recorded, end() does nothing) when the next
  // pair of the ring is still in flight: that span goes untimed rather than waiting.
  bool begin(std::uint64_t tag, cudaStream_t stream);
  void end(cudaStream_t stream);
  // The spans finished since the last call, oldest first. Throws CudaError on a failed query.
  std::vector<ClockReading> poll();
  // Forgets every span in flight (after the device was lost: the events are destroyed unread).
  void release();

 private:
  struct Pair {
    cudaEvent_t start = nullptr, stop = nullptr;
    std::uint64_t tag = 0;
    bool pending = false;
  };
  std::vector<Pair> ring_;
  std::size_t next_ = 0;
  int open_ = -1;  // the pair between begin() and end()
};

}  // namespace gausslab
