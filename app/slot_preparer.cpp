#include "slot_preparer.hpp"

#include <exception>

namespace gausslab {

SlotPreparer::SlotPreparer() : thread_([this](Job& job, const std::atomic<bool>&) { run(job); }) {}

SlotPreparer::~SlotPreparer() = default;

void SlotPreparer::submit(const SlotSetting& setting, Work work) {
  // A running prepare is not asked to stop: it cannot, and the next job waits for it anyway.
  thread_.submit(Job{setting, std::move(work)}, false);
}

std::optional<PrepareOutcome> SlotPreparer::take(const SlotSetting& setting) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!outcome_ || outcome_->setting != setting) return std::nullopt;
  std::optional<PrepareOutcome> out = std::move(outcome_);
  outcome_.reset();
  return out;
}

void SlotPreparer::run(Job& job) {
  PrepareOutcome outcome{job.setting, {}, {}, {}};
  try {
    outcome.bound = job.work();
  } catch (const std::exception& error) {
    outcome.error = error.what();
    if (outcome.error.empty()) outcome.error = "the method could not be prepared";
    outcome.failure = std::current_exception();
  } catch (...) {
    outcome.error = "the method could not be prepared";
    outcome.failure = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  outcome_ = std::move(outcome);
}

}  // namespace gausslab
