#pragma once
// Runs the CPU methods of the slots on a worker thread, so a slow one (seconds at 3840x2160)
// never freezes the window: the UI keeps drawing the last finished result and shows the run in
// progress; the result is uploaded when it arrives. One job per slot at a time; a newer setting
// replaces one still waiting.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"
#include "comparison/job_thread.hpp"
#include "comparison/slot_setting.hpp"

namespace gausslab {

struct CpuRunResult {
  int slot = 0;
  SlotSetting setting;
  ImageRgba8 image;
  std::vector<double> run_ms;  // one per repeat
  std::string error;           // set when the method threw
};

class CpuSlotRunner {
 public:
  CpuSlotRunner();
  ~CpuSlotRunner();

  // Runs the CPU method of `setting` on `picture` `repeat` times into a new image.
  void submit(int slot, const SlotSetting& setting, std::shared_ptr<const ImageRgba8> picture, int repeat);
  // True while slot's job waits or runs.
  bool busy(int slot) const;
  // A finished result of the slot's waits to be taken (take_results).
  bool result_waiting(int slot) const;
  // Seconds the slot's current job has been running (0 when none).
  double running_seconds(int slot) const;
  // Finished results, oldest first.
  std::vector<CpuRunResult> take_results();
  // The UI drew a frame. (For the test hook GAUSSLAB_TEST_HOLD_CPU_RESULT_FRAMES=N: a finished
  // result is handed over only after the UI has drawn N frames since the job started, so a UI
  // that waited for the worker would never finish: the test proves it does not.)
  // GAUSSLAB_TEST_FAIL_CPU_METHOD=ID makes that method's runs throw, as a method that runs out of
  // memory would: the viewer's recovery (another method takes the slot, the user is told) is
  // tested without a GPU; the GPU faults themselves come from GAUSSLAB_INJECT_FAULT (cuda/).
  void frame_drawn() { ++frames_drawn_; }
  void wait_idle();

 private:
  struct Job {
    std::vector<int> slots;  // slots of the queue, in order
  };
  struct SlotJob {
    SlotSetting setting;
    std::shared_ptr<const ImageRgba8> picture;
    int repeat = 1;
  };
  void run(const std::atomic<bool>& superseded);

  mutable std::mutex mutex_;
  std::optional<SlotJob> waiting_[2];
  bool running_[2] = {false, false};
  std::chrono::steady_clock::time_point started_[2];
  std::vector<CpuRunResult> results_;
  std::vector<std::unique_ptr<Method>> instances_;  // per registry index, used on the worker only
  std::atomic<long long> frames_drawn_{0};
  long long hold_frames_ = 0;
  std::string fail_method_;
  JobThread<Job> thread_;  // last
};

}  // namespace gausslab
