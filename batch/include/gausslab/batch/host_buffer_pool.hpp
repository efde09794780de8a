#pragma once
// Pooled host buffers for the images in flight: page-locked (pinned) where CUDA can pin, so that
// uploads and downloads run at the bus's speed and overlap with kernels; ordinary memory for the
// pageable baseline and where there is no CUDA device. Buffers are allocated once and reused
// (pinning costs far more than a copy); the bytes allocated never exceed the budget, and a request
// the budget cannot meet yet waits, in order, until enough buffers come back.
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gausslab/cuda/pinned_buffer.hpp"

namespace gausslab {

class HostBufferPool {
 public:
  enum class Kind { Pinned, Pageable };

  struct Buffer {
    void* data = nullptr;
    std::size_t capacity = 0;
    bool pinned = false;
    PinnedBuffer page_locked;                  // when pinned
    std::unique_ptr<unsigned char[]> ordinary; // otherwise
  };
  // A buffer on loan; it returns to the pool when the last copy goes.
  using Lease = std::shared_ptr<Buffer>;
  // Receives the buffer, or a null lease and the reason when it could not be allocated.
  using Ready = std::function<void(Lease, const std::string& error)>;

  HostBufferPool(Kind kind, std::size_t budget_bytes);
  // Every lease must have come back.
  ~HostBufferPool();
  HostBufferPool(const HostBufferPool&) = delete;
  HostBufferPool& operator=(const HostBufferPool&) = delete;

  // Calls ready with a buffer of at least `bytes`: now, on this thread, when a free buffer fits or
  // the budget allows a new one; otherwise later, on the thread whose returned buffer makes room.
  // A request larger than the whole budget gets an error at once.
  void acquire(std::size_t bytes, Ready ready);
  // The same, waiting on this thread; throws std::runtime_error with the reason.
  Lease acquire_blocking(std::size_t bytes);
  // A buffer now if acquire would serve one now (nobody waiting before it, a free buffer fits or
  // the budget allows a new one); otherwise, or when allocating fails, a null lease and no wait.
  Lease try_acquire(std::size_t bytes);
  // Allocates `count` buffers of `bytes` ahead, outside any timed region (the benchmark).
  void reserve(int count, std::size_t bytes);

  Kind kind() const { return kind_; }
  std::size_t budget_bytes() const { return budget_; }
  // Whether the buffers are really page-locked (false when pinning failed: no CUDA device).
  bool pinned() const;
  std::size_t peak_bytes() const;
  double allocation_ms() const;  // time spent allocating and pinning
  int allocations() const;

 private:
  struct Waiter {
    std::size_t bytes;
    Ready ready;
  };
  Lease lend(Buffer* buffer);
  void give_back(Buffer* buffer);
  // With the mutex held: a free buffer of at least `bytes`, or a new one if the budget allows
  // (freeing idle buffers to make room); nullptr when the request must wait. Throws on failure.
  Buffer* take_locked(std::size_t bytes);
  Buffer* allocate_locked(std::size_t bytes);

  const Kind kind_;
  const std::size_t budget_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Buffer>> buffers_;  // all allocated buffers
  std::vector<Buffer*> idle_;
  std::deque<Waiter> waiters_;
  std::size_t allocated_bytes_ = 0, peak_bytes_ = 0;
  double allocation_ms_ = 0;
  int allocations_ = 0;
  bool pinning_failed_ = false;
};

}  // namespace gausslab
