#include "comparison/save_queue.hpp"

#include <exception>

namespace gausslab {

SaveQueue::SaveQueue() : thread_([this] { work(); }) {}

SaveQueue::~SaveQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void SaveQueue::submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_all();
}

std::vector<std::string> SaveQueue::take_messages() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> taken;
  taken.swap(messages_);
  return taken;
}

bool SaveQueue::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_ || !jobs_.empty();
}

void SaveQueue::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !running_ && jobs_.empty(); });
}

void SaveQueue::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to save
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    running_ = true;
    lock.unlock();
    std::string message;
    try {
      message = job();
    } catch (const std::exception& error) {
      message = std::string("could not save: ") + error.what();
    }
    lock.lock();
    messages_.push_back(std::move(message));
    running_ = false;
    idle_.notify_all();
  }
}

}  // namespace gausslab
