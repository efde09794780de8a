#pragma once
// A slot's GPU method prepared off the UI thread. Preparing can take a frame's worth of time many
// times over (fft makes cuFFT plans and reserves its buffers at every new sigma), so the frame hands
// it to this worker and polls: until the outcome for the slot's setting is in, the slot is not
// prepared (it does not run, its picture keeps its last result). A newer job replaces one still
// waiting; one already running finishes (a prepare cannot stop halfway) and its outcome, tagged with
// its setting, is taken only by a slot that still wants that setting. The method instance must not
// be used by the frame while a job for it waits or runs.
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "gausslab/cuda/method.hpp"
#include "comparison/job_thread.hpp"
#include "comparison/slot_setting.hpp"

namespace gausslab {

struct PrepareOutcome {
  SlotSetting setting;
  std::string error;          // what the preparation threw ("" when it succeeded)
  std::exception_ptr failure;  // the same exception, for callers that tell its kinds apart
  AccuracyBound bound;
};

class SlotPreparer {
 public:
  // work: prepares the method and returns its accuracy bound; whatever it throws comes back as
  // PrepareOutcome::error.
  using Work = std::function<AccuracyBound()>;

  // name: how the frame trace (GAUSSLAB_FRAME_TRACE_MS) names this worker's jobs.
  explicit SlotPreparer(std::string name = "worker");
  ~SlotPreparer();  // waits for the job running
  SlotPreparer(const SlotPreparer&) = delete;
  SlotPreparer& operator=(const SlotPreparer&) = delete;

  void submit(const SlotSetting& setting, Work work);
  // The outcome of the latest finished job when it was for `setting` (handed out once).
  std::optional<PrepareOutcome> take(const SlotSetting& setting);
  bool busy() const { return thread_.busy(); }
  void wait_idle() { thread_.wait_idle(); }

 private:
  struct Job {
    SlotSetting setting;
    Work work;
  };
  void run(Job& job);

  std::string name_;
  std::mutex mutex_;
  std::optional<PrepareOutcome> outcome_;
  JobThread<Job> thread_;  // last: joined before the rest goes
};

}  // namespace gausslab
