// The save worker: every job runs, in order, off the calling thread; none is lost at shut-down.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "comparison/save_queue.hpp"

namespace gausslab {
namespace {

TEST(SaveQueue, RunsEveryJobInOrderOffTheCallingThread) {
  SaveQueue queue;
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> on_caller{0};
  for (int i = 0; i < 20; ++i)
    queue.submit([i, caller, &on_caller] {
      if (std::this_thread::get_id() == caller) ++on_caller;
      return "saved " + std::to_string(i);
    });
  queue.wait_idle();
  EXPECT_FALSE(queue.busy());
  const std::vector<std::string> messages = queue.take_messages();
  ASSERT_EQ(messages.size(), 20u);  // none replaced by a newer one, unlike JobThread
  for (int i = 0; i < 20; ++i) EXPECT_EQ(messages[static_cast<std::size_t>(i)], "saved " + std::to_string(i));
  EXPECT_EQ(on_caller.load(), 0);
  EXPECT_TRUE(queue.take_messages().empty());  // each message is handed over once
}

TEST(SaveQueue, IsBusyWhileAJobRunsAndAFailureBecomesItsMessage) {
  SaveQueue queue;
  std::mutex mutex;
  std::condition_variable changed;
  bool started = false, release = false;
  queue.submit([&]() -> std::string {
    std::unique_lock<std::mutex> lock(mutex);
    started = true;
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
    throw std::runtime_error("disk full");
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return started; });
  }
  EXPECT_TRUE(queue.busy());  // the job holds until released: no timing involved
  {
    std::lock_guard<std::mutex> lock(mutex);
    release = true;
  }
  changed.notify_all();
  queue.wait_idle();
  const std::vector<std::string> messages = queue.take_messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "could not save: disk full");
}

TEST(SaveQueue, TheDestructorFinishesEveryQueuedSave) {
  std::atomic<int> done{0};
  {
    SaveQueue queue;
    for (int i = 0; i < 10; ++i)
      queue.submit([&done] {
        ++done;
        return std::string("saved");
      });
  }  // no wait_idle: the destructor must not drop the waiting jobs
  EXPECT_EQ(done.load(), 10);
}

}  // namespace
}  // namespace gausslab
