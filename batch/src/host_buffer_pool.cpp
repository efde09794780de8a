#include "gausslab/batch/host_buffer_pool.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <new>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"

namespace gausslab {

namespace {

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

HostBufferPool::HostBufferPool(Kind kind, std::size_t budget_bytes) : kind_(kind), budget_(budget_bytes) {}

HostBufferPool::~HostBufferPool() = default;

bool HostBufferPool::pinned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kind_ == Kind::Pinned && !pinning_failed_;
}

std::size_t HostBufferPool::peak_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return peak_bytes_;
}

double HostBufferPool::allocation_ms() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocation_ms_;
}

int HostBufferPool::allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocations_;
}

HostBufferPool::Buffer* HostBufferPool::allocate_locked(std::size_t bytes) {
  const auto start = std::chrono::steady_clock::now();
  auto buffer = std::make_unique<Buffer>();
  buffer->capacity = bytes;
  if (kind_ == Kind::Pinned && !pinning_failed_) {
    try {
      buffer->page_locked.resize(bytes);
      buffer->data = buffer->page_locked.data();
      buffer->pinned = true;
    } catch (const CudaUnavailable&) {
      pinning_failed_ = true;  // no CUDA device: ordinary memory serves the CPU path
    } catch (const CudaOutOfMemory&) {
      // The system would not lock this much: ordinary memory, slower copies, but the image goes on.
    }
  }
  if (!buffer->data) {
    buffer->ordinary.reset(new unsigned char[bytes]);  // std::bad_alloc when the host is out of memory
    buffer->data = buffer->ordinary.get();
  }
  allocation_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++allocations_;
  allocated_bytes_ += bytes;
  peak_bytes_ = std::max(peak_bytes_, allocated_bytes_);
  buffers_.push_back(std::move(buffer));
  return buffers_.back().get();
}

HostBufferPool::Buffer* HostBufferPool::take_locked(std::size_t bytes) {
  // The smallest idle buffer that fits.
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it)
    if ((*it)->capacity >= bytes && (best == idle_.end() || (*it)->capacity < (*best)->capacity)) best = it;
  if (best != idle_.end()) {
    Buffer* buffer = *best;
    idle_.erase(best);
    return buffer;
  }
  // Room for a new one, freeing idle buffers (largest first) if that makes it fit.
  std::size_t idle_bytes = 0;
  for (Buffer* buffer : idle_) idle_bytes += buffer->capacity;
  if (allocated_bytes_ - idle_bytes + bytes > budget_) return nullptr;
  std::sort(idle_.begin(), idle_.end(), [](Buffer* a, Buffer* b) { return a->capacity > b->capacity; });
  while (allocated_bytes_ + bytes > budget_ && !idle_.empty()) {
    Buffer* victim = idle_.front();
    idle_.erase(idle_.begin());
    allocated_bytes_ -= victim->capacity;
    buffers_.erase(std::find_if(buffers_.begin(), buffers_.end(),
                                [victim](const std::unique_ptr<Buffer>& b) { return b.get() == victim; }));
  }
  return allocate_locked(bytes);
}

HostBufferPool::Lease HostBufferPool::lend(Buffer* buffer) {
  return Lease(buffer, [this](Buffer* b) { give_back(b); });
}

void HostBufferPool::give_back(Buffer* buffer) {
  std::vector<std::pair<Waiter, Lease>> served;
  std::vector<std::pair<Waiter, std::string>> failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(buffer);
    // Serve waiters in order while the head fits.
    while (!waiters_.empty()) {
      Buffer* taken = nullptr;
      try {
        taken = take_locked(waiters_.front().bytes);
      } catch (const std::exception& error) {
        failed.emplace_back(std::move(waiters_.front()), error.what());
        waiters_.pop_front();
        continue;
      }
      if (!taken) break;
      served.emplace_back(std::move(waiters_.front()), lend(taken));
      waiters_.pop_front();
    }
  }
  for (auto& [waiter, lease] : served) waiter.ready(std::move(lease), {});
  for (auto& [waiter, error] : failed) waiter.ready(nullptr, error);
}

void HostBufferPool::acquire(std::size_t bytes, Ready ready) {
  if (bytes > budget_) {
    ready(nullptr, "it needs " + mib(bytes) + " of host buffers, more than their whole budget of " + mib(budget_));
    return;
  }
  Lease lease;
  std::string error;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (waiters_.empty()) {  // first come, first served
      try {
        if (Buffer* buffer = take_locked(bytes)) lease = lend(buffer);
      } catch (const std::bad_alloc&) {
        error = "out of host memory allocating a " + mib(bytes) + " buffer";
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    if (!lease && error.empty()) {
      waiters_.push_back({bytes, std::move(ready)});
      return;
    }
  }
  ready(std::move(lease), error);
}

HostBufferPool::Lease HostBufferPool::try_acquire(std::size_t bytes) {
  if (bytes > budget_) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!waiters_.empty()) return nullptr;  // first come, first served
  try {
    if (Buffer* buffer = take_locked(bytes)) return lend(buffer);
  } catch (const std::exception&) {
    // Out of host memory or pinning refused: the caller goes on without a buffer, and acquire
    // reports the reason if it asks again.
  }
  return nullptr;
}

HostBufferPool::Lease HostBufferPool::acquire_blocking(std::size_t bytes) {
  std::mutex mutex;
  std::condition_variable done;
  bool arrived = false;
  Lease result;
  std::string failure;
  acquire(bytes, [&](Lease lease, const std::string& error) {
    std::lock_guard<std::mutex> lock(mutex);
    result = std::move(lease);
    failure = error;
    arrived = true;
    done.notify_one();
  });
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return arrived; });
  if (!result) throw std::runtime_error(failure);
  return result;
}

void HostBufferPool::reserve(int count, std::size_t bytes) {
  std::vector<Lease> held;
  if (bytes == 0 || bytes > budget_) return;
  count = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(count), budget_ / bytes));
  for (int i = 0; i < count; ++i) held.push_back(acquire_blocking(bytes));
}

}  // namespace gausslab
