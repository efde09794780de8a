#pragma once
// A fixed pool of CPU threads with two queues: urgent tasks (those that finish images and free
// their memory: encode, write) run before normal ones (those that start images: read, decode).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gausslab {

class ThreadPool {
 public:
  enum class Priority { Normal, Urgent };

  // `thread_init` runs first on each thread (the batch makes its CUDA device current there).
  explicit ThreadPool(int threads, const std::function<void()>& thread_init = {});
  // Runs every task already queued, then joins.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Tasks must not throw (the engine's tasks catch per file); one that does is a logic error and
  // terminates, as an escaped exception in any thread does.
  void submit(std::function<void()> task, Priority priority = Priority::Normal);
  int size() const { return static_cast<int>(workers_.size()); }

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> urgent_, normal_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace gausslab
