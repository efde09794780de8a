#pragma once
// Saving off the UI thread: encoding a 4096² PNG takes about a second and a 1920×1080 view 0.1–0.2 s,
// so each save (file naming, encoding, writing, the sidecar) is a job on one worker thread. Unlike
// JobThread (newest job wins) every job runs, in the order submitted: no save is ever dropped, and
// the destructor finishes the queued ones before it returns. Each job's message ("saved ...",
// "could not save: ...") is collected for the UI thread to show.
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gausslab {

class SaveQueue {
 public:
  using Job = std::function<std::string()>;  // does the work, returns the message to show

  SaveQueue();
  ~SaveQueue();  // runs every queued job first
  SaveQueue(const SaveQueue&) = delete;
  SaveQueue& operator=(const SaveQueue&) = delete;

  void submit(Job job);
  // The messages of the jobs finished since the last call, in order.
  std::vector<std::string> take_messages();
  // A job waits or runs.
  bool busy() const;
  // Blocks until every submitted job has finished (tests, the end of automated runs).
  void wait_idle();

 private:
  void work();

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Job> jobs_;
  std::vector<std::string> messages_;
  bool running_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after everything it uses
};

}  // namespace gausslab
