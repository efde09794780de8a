#include "comparison/cpu_slot_runner.hpp"

#include <cstdlib>
#include <thread>

#include "comparison/background_threads.hpp"
#include "gausslab/core/pooling.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

CpuSlotRunner::CpuSlotRunner() : thread_([this](Job&, const std::atomic<bool>& superseded) { run(superseded); }) {
  if (const char* hold = std::getenv("GAUSSLAB_TEST_HOLD_CPU_RESULT_FRAMES")) hold_frames_ = std::atoll(hold);
  if (const char* fail = std::getenv("GAUSSLAB_TEST_FAIL_CPU_METHOD")) fail_method_ = fail;
}

CpuSlotRunner::~CpuSlotRunner() = default;

void CpuSlotRunner::submit(int slot, const SlotSetting& setting, std::shared_ptr<const ImageRgba8> picture, int repeat) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_[slot] = SlotJob{setting, std::move(picture), repeat};
  }
  thread_.submit(Job{}, false);  // the running slot finishes; the worker then takes what waits
}

bool CpuSlotRunner::busy(int slot) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_[slot] || waiting_[slot].has_value();
}

bool CpuSlotRunner::result_waiting(int slot) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const CpuRunResult& result : results_)
    if (result.slot == slot) return true;
  return false;
}

double CpuSlotRunner::running_seconds(int slot) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_[slot]) return 0.0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_[slot]).count();
}

std::vector<CpuRunResult> CpuSlotRunner::take_results() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CpuRunResult> results;
  results.swap(results_);
  return results;
}

void CpuSlotRunner::wait_idle() {
  while (true) {
    thread_.wait_idle();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!waiting_[0] && !waiting_[1]) return;
  }
}

void CpuSlotRunner::run(const std::atomic<bool>& superseded) {
  // CPU methods only (no CUDA calls): a lowered priority and a share of the cores, so the UI thread
  // keeps drawing while a slow one runs.
  use_background_cpu_share(true);
  // Takes what waits, slot A first, until nothing does.
  while (true) {
    int slot = -1;
    SlotJob job;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int i = 0; i < 2 && slot < 0; ++i)
        if (waiting_[i]) {
          slot = i;
          job = std::move(*waiting_[i]);
          waiting_[i].reset();
          running_[i] = true;
          started_[i] = std::chrono::steady_clock::now();
        }
    }
    if (slot < 0) return;
    const long long frames_at_start = frames_drawn_;
    CpuRunResult result;
    result.slot = slot;
    result.setting = job.setting;
    try {
      // CPU methods only: auto in its CPU form (the registry without GPU methods).
      const std::vector<MethodEntry>& registry = method_registry(false);
      if (instances_.size() != registry.size()) instances_.resize(registry.size());
      auto& method = instances_.at(static_cast<std::size_t>(job.setting.method));
      if (!method) method = registry[static_cast<std::size_t>(job.setting.method)].create();
      if (method->info().id == fail_method_)  // the test hook (see the header)
        throw std::runtime_error("an injected failure of " + fail_method_ + " (GAUSSLAB_TEST_FAIL_CPU_METHOD)");
      const FilterProblem problem{job.picture->width(), job.picture->height(), PixelFormat::Rgba8, job.setting.params};
      method->prepare(problem);
      result.image = ImageRgba8(job.picture->width(), job.picture->height());
      for (int r = 0; r < job.repeat; ++r) {
        const auto start = std::chrono::steady_clock::now();
        method->run(job.picture->view(), result.image.view(), nullptr, nullptr);
        result.run_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
      if (job.setting.pool != PoolMode::None) result.image = pool_2x2(result.image, job.setting.pool);
    } catch (const std::exception& error) {
      result.error = error.what();
    }
    while (hold_frames_ > 0 && frames_drawn_ < frames_at_start + hold_frames_ && !superseded)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the test hook (see the header)
    std::lock_guard<std::mutex> lock(mutex_);
    running_[slot] = false;
    results_.push_back(std::move(result));
  }
}

}  // namespace gausslab
