#include "accuracy_probe.hpp"

#include <algorithm>
#include <chrono>

#include "gausslab/core/reference.hpp"

namespace gausslab {

Rect accuracy_crop(int width, int height) {
  return {0, 0, std::min(width, kAccuracyCropSide), std::min(height, kAccuracyCropSide)};
}

AccuracyProbe::AccuracyProbe() : worker_([this] { work(); }) {}

AccuracyProbe::~AccuracyProbe() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    waiting_.reset();
  }
  wake_.notify_all();
  worker_.join();
}

void AccuracyProbe::submit(AccuracyJob job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_ = std::move(job);
  }
  wake_.notify_all();
}

std::optional<AccuracyResult> AccuracyProbe::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

void AccuracyProbe::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !busy_ && !waiting_; });
}

void AccuracyProbe::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || waiting_.has_value(); });
    if (stopping_) return;
    AccuracyJob job = std::move(*waiting_);
    waiting_.reset();
    busy_ = true;
    lock.unlock();

    AccuracyResult result;
    result.generation = job.generation;
    result.bound = job.bound;
    result.region = job.region;
    const auto start = std::chrono::steady_clock::now();
    try {
      const std::vector<double> reference = reference_gaussian_region(job.source->view(), job.params, job.region);
      result.stats = compare_with_reference(job.crop.view(), reference, default_peak(PixelFormat::Rgba8));
    } catch (const std::exception& error) {
      result.error = error.what();
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    lock.lock();
    latest_ = std::move(result);
    busy_ = false;
    idle_.notify_all();
  }
}

}  // namespace gausslab
