#include "comparison/slot_preparer.hpp"

#include <chrono>
#include <exception>
#include <string>

#include "viewer/frame_trace.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

SlotPreparer::SlotPreparer(std::string name)
    : name_(std::move(name)), thread_([this](Job& job, const std::atomic<bool>&) { run(job); }) {}

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
  // With the frame trace on: when each job ran, to set beside the frames it may have held up (a
  // worker's CUDA calls, a free above all, can make the frame's calls wait).
  const auto t0 = std::chrono::steady_clock::now();
  const bool traced = FrameTrace::instance().enabled();
  std::string what;  // made only when tracing is on
  if (traced) {
    const auto& registry = method_registry();
    const auto method = static_cast<std::size_t>(job.setting.method);
    what = name_ + (job.setting.method >= 0 && method < registry.size() ? " " + registry[method].info.id : "");
    FrameTrace::instance().note(what + " begins");
  }
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
  if (traced)
    FrameTrace::instance().note(
        what + " took " +
        std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()) + " ms");
  std::lock_guard<std::mutex> lock(mutex_);
  outcome_ = std::move(outcome);
}

}  // namespace gausslab
