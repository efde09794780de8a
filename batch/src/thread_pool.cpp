#include "gausslab/batch/thread_pool.hpp"

#include <algorithm>

namespace gausslab {

ThreadPool::ThreadPool(int threads, const std::function<void()>& thread_init) {
  for (int i = 0; i < std::max(1, threads); ++i)
    workers_.emplace_back([this, thread_init] {
      if (thread_init) thread_init();
      work();
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::submit(std::function<void()> task, Priority priority) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (priority == Priority::Urgent ? urgent_ : normal_).push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !urgent_.empty() || !normal_.empty(); });
      if (urgent_.empty() && normal_.empty()) return;  // stopping, and nothing left
      std::deque<std::function<void()>>& queue = urgent_.empty() ? normal_ : urgent_;
      task = std::move(queue.front());
      queue.pop_front();
    }
    task();
  }
}

}  // namespace gausslab
