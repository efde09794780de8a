#pragma once
// One worker thread that runs the newest job: a job still waiting is replaced by a newer one, and
// the job running is told (superseded) so it can stop at its next check. The viewer's slow work
// (CPU methods, the exact Gaussian, the A-vs-B numbers, compare-all) runs on these, never on the
// UI thread.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace gausslab {

template <class Job>
class JobThread {
 public:
  // run(job, superseded): superseded turns true when a newer job arrives or the thread stops.
  explicit JobThread(std::function<void(Job&, const std::atomic<bool>& superseded)> run)
      : run_(std::move(run)), thread_([this] { work(); }) {}
  ~JobThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      waiting_.reset();
      superseded_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  JobThread(const JobThread&) = delete;
  JobThread& operator=(const JobThread&) = delete;

  // Queues a job (replacing one that waits); supersede: also ask the running job to stop.
  void submit(Job job, bool supersede = true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      waiting_ = std::move(job);
      if (supersede && running_) superseded_ = true;
    }
    wake_.notify_all();
  }
  // A job waits or runs.
  bool busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || waiting_.has_value();
  }
  // Blocks until no job waits or runs (end of automated runs, tests).
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !running_ && !waiting_; });
  }

 private:
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stopping_ || waiting_.has_value(); });
      if (stopping_) return;
      Job job = std::move(*waiting_);
      waiting_.reset();
      running_ = true;
      superseded_ = false;
      lock.unlock();
      run_(job, superseded_);
      lock.lock();
      running_ = false;
      idle_.notify_all();
    }
  }

  std::function<void(Job&, const std::atomic<bool>&)> run_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::optional<Job> waiting_;
  bool running_ = false;
  bool stopping_ = false;
  std::atomic<bool> superseded_{false};
  std::thread thread_;  // last: starts after everything it uses
};

}  // namespace gausslab
