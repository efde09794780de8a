#pragma once
// The comparison's two slots, A and B. Each knows what it is set to show (a registered method or
// the original picture, for one picture and one set of parameters), keeps one instance per method
// (made on first use and kept, so buffers, plans and spectra are reused), and whether its result
// is up to date: that is derived by comparing the setting wanted with the setting last prepared
// and last computed, never from counters kept in step by hand.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comparison/slot_setting.hpp"
#include "gausslab/cuda/method.hpp"
#include "gausslab/cuda/stage_timer.hpp"

namespace gausslab {

class ResultPipeline;
class SlotPreparer;

class Slot {
 public:
  // history: frames kept for the stage medians.
  explicit Slot(int history);
  ~Slot();  // waits for a prepare still running
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  // The method instance for a registry index, made on first use.
  Method* instance(int method);

  // Whether the pipeline runs GPU methods: without them the instances come from the registry's CPU
  // forms (method_registry(false): auto chooses among the CPU methods). A change frees the
  // instances (queued work must have finished).
  void set_gpu_methods_run(bool run);

  // A second instance per method for sliced runs (prepared for a tile with its halo, so the
  // whole-image instance above keeps its preparation), made on first use.
  Method* band_instance(int method);

  // Sets what the slot should show. Cheap; the work happens in prepare() and the pipeline.
  void want(const SlotSetting& setting) { wanted_ = setting; }
  const SlotSetting& wanted() const { return wanted_; }
  bool shows_method() const { return wanted_.method >= 0; }

  // Prepares the wanted method for `problem` unless that setting was prepared already (allocations,
  // plans and weights stay out of the timed frames). GPU methods need a pipeline that runs them and
  // are prepared on the slot's prepare worker (slot_preparer.hpp): call this every frame, and the
  // slot is prepared once the worker's outcome for the wanted setting is in. CPU methods prepare
  // here. Once prepared, problem() says why the slot cannot run, or is empty.
  void prepare(const FilterProblem& problem, ResultPipeline& pipeline);
  // A GPU method's prepare for the wanted setting waits or runs on the worker.
  bool preparing() const { return preparing_ && *preparing_ == wanted_; }
  // Blocks until the prepare worker is idle (before the GPU goes, at shut-down).
  void wait_preparing();
  // Not while a prepare waits or runs on the worker: the frame must not use the instance then.
  bool prepared() const { return prepared_ && *prepared_ == wanted_ && !preparing_; }
  // The prepare worker is running a job now (its CUDA calls, cuFFT's plans, cudaFree, can hold the
  // driver's locks and wait for the whole device: the frame issues no CUDA work meanwhile).
  bool worker_running() const;
  const std::string& problem() const { return problem_; }
  // The bound the prepared method promises (meaningful when problem() is empty).
  const AccuracyBound& bound() const { return bound_; }

  // True when the slot should run this frame: prepared without a problem, and either continuous
  // processing or a result older than the setting.
  bool needs_run(bool continuous) const {
    return shows_method() && prepared() && problem_.empty() && (continuous || !up_to_date());
  }
  bool up_to_date() const { return computed_ && *computed_ == wanted_; }
  // Work handed to a worker for the wanted setting (CPU methods).
  void mark_submitted() { submitted_ = wanted_; }
  bool submitted_current() const { return submitted_ && *submitted_ == wanted_; }
  void mark_computed() { computed_ = wanted_; }
  // A run failed: the slot stays blocked with the reason until its setting changes.
  void mark_failed(const std::string& why) { problem_ = why; }

  StageTimer& timer() { return timer_; }
  const StageTimer& timer() const { return timer_; }
  // Frees every method instance (queued work must have finished).
  void release_instances();

 private:
  SlotSetting wanted_;
  std::optional<SlotSetting> prepared_, computed_, submitted_;
  std::optional<SlotSetting> preparing_;  // handed to the prepare worker, outcome not yet taken
  std::string problem_;
  AccuracyBound bound_;
  bool gpu_methods_run_ = true;
  std::vector<std::unique_ptr<Method>> instances_;       // per registry index
  std::vector<std::unique_ptr<Method>> band_instances_;  // per registry index, for sliced runs
  StageTimer timer_;
  std::unique_ptr<SlotPreparer> preparer_;  // made on the first GPU prepare; after the instances: goes first
};

}  // namespace gausslab
