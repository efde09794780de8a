// The slot preparer (app/comparison/slot_preparer.hpp): GPU methods' prepare() off the UI thread, the newest
// setting winning, errors handed back to the UI thread. Waits on events, never on time.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "comparison/slot_preparer.hpp"

namespace gausslab {
namespace {

SlotSetting setting_with_sigma(double sigma) {
  SlotSetting setting;
  setting.method = 0;
  setting.params.sigma = sigma;
  return setting;
}

TEST(SlotPreparer, HandsBackTheOutcomeOnceAndOnlyForItsSetting) {
  SlotPreparer preparer;
  preparer.submit(setting_with_sigma(2), [] { return AccuracyBound{1e-3, 0.75}; });
  preparer.wait_idle();
  EXPECT_FALSE(preparer.busy());
  EXPECT_FALSE(preparer.take(setting_with_sigma(3)));  // another setting: nothing
  const std::optional<PrepareOutcome> outcome = preparer.take(setting_with_sigma(2));
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(outcome->error.empty());
  EXPECT_EQ(outcome->bound.max_error_8bit, 0.75);
  EXPECT_FALSE(preparer.take(setting_with_sigma(2)));  // handed out once
}

TEST(SlotPreparer, AnErrorComesBackAsText) {
  SlotPreparer preparer;
  preparer.submit(setting_with_sigma(8), []() -> AccuracyBound { throw std::runtime_error("cufftPlan2d failed"); });
  preparer.wait_idle();
  const std::optional<PrepareOutcome> outcome = preparer.take(setting_with_sigma(8));
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->error, "cufftPlan2d failed");
  EXPECT_TRUE(outcome->failure);
}

// A sliced run's start tells a refused tile (std::invalid_argument: the slot runs whole) from a GPU
// failure by the exception's kind, which the outcome keeps; a success carries none.
TEST(SlotPreparer, TheFailureKeepsTheExceptionsKind) {
  SlotPreparer preparer;
  preparer.submit(setting_with_sigma(4), []() -> AccuracyBound { throw std::invalid_argument("tile too small"); });
  preparer.wait_idle();
  std::optional<PrepareOutcome> outcome = preparer.take(setting_with_sigma(4));
  ASSERT_TRUE(outcome);
  ASSERT_TRUE(outcome->failure);
  EXPECT_THROW(std::rethrow_exception(outcome->failure), std::invalid_argument);

  preparer.submit(setting_with_sigma(5), [] { return AccuracyBound{}; });
  preparer.wait_idle();
  outcome = preparer.take(setting_with_sigma(5));
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->failure);
  EXPECT_TRUE(outcome->error.empty());
}

TEST(SlotPreparer, ANewerSettingReplacesOneStillWaitingAndTheRunningOneFinishes) {
  SlotPreparer preparer;
  std::mutex mutex;
  std::condition_variable changed;
  bool started = false, release = false;
  int ran_sigma_4 = 0, ran_sigma_16 = 0;
  preparer.submit(setting_with_sigma(2), [&] {
    std::unique_lock<std::mutex> lock(mutex);
    started = true;
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
    return AccuracyBound{};
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return started; });
  }
  EXPECT_TRUE(preparer.busy());
  preparer.submit(setting_with_sigma(4), [&] { ++ran_sigma_4; return AccuracyBound{}; });
  preparer.submit(setting_with_sigma(16), [&] { ++ran_sigma_16; return AccuracyBound{}; });
  {
    std::lock_guard<std::mutex> lock(mutex);
    release = true;
  }
  changed.notify_all();
  preparer.wait_idle();
  EXPECT_EQ(ran_sigma_4, 0);  // replaced while it waited
  EXPECT_EQ(ran_sigma_16, 1);
  EXPECT_FALSE(preparer.take(setting_with_sigma(2)));  // superseded by the later outcome
  EXPECT_FALSE(preparer.take(setting_with_sigma(4)));
  EXPECT_TRUE(preparer.take(setting_with_sigma(16)));
}

}  // namespace
}  // namespace gausslab
