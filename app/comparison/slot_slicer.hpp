#pragma once
// A slot's slow GPU methods in slices (render/slicing.hpp has the rules, render/sliced_run.hpp the
// device side, slice_schedule.hpp the frames' view). A band-exact GPU method whose whole run is
// predicted longer than kFrameSliceBudgetMs runs in tiles, the slots slicing in a frame sharing one
// budget of GPU work; the slot shows its last finished result until the last tile is done, then the
// new one. Every GPU run's time, whole or sliced, goes through the SliceLedger: the cost model learns
// from it, and a finished sliced run's total becomes a sample of its slot's stage "sliced".
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comparison/slice_schedule.hpp"
#include "comparison/slots.hpp"
#include "gausslab/render/run_clock.hpp"
#include "gausslab/render/slicing.hpp"

namespace gausslab {

class GlTimer;
class ResultPipeline;
class SlicedRun;
class SlotPreparer;
class SlotSlicer;

// The GPU times on their way: what each tag measures, the cost model that learns from them, and the
// totals of the sliced runs in progress. Tags and run numbers come from one counter.
class SliceLedger {
 public:
  struct Span {
    SlotSlicer* slicer = nullptr;  // the slot it ran for
    const char* slot = "";         // "A" or "B", for the frame trace
    std::string method;
    double units = 0;
    std::uint64_t run = 0;  // the sliced run it belongs to; 0: a whole run
    int radius = 0;
    int launches = 1;  // steps in the span (one for a whole run)
  };
  struct RunTotal {
    SlotSlicer* slicer = nullptr;
    SlotSetting setting;
    double ms = 0;
    int steps = 0, read = 0, tiles = 0;
    bool row_bands = true, finished = false, untimed = false;
  };

  const CostModel& cost_model() const { return cost_model_; }
  std::uint64_t new_tag() { return next_tag_++; }
  void add_span(std::uint64_t tag, Span span) { spans_[tag] = std::move(span); }
  RunTotal& run_total(std::uint64_t run) { return totals_[run]; }
  void drop_run(std::uint64_t run) { totals_.erase(run); }
  // The GPU times read back (no waiting): the cost model learns, a sliced run whose every span is in
  // goes to its slicer (SlotSlicer::run_finished).
  void learn(const std::vector<ClockReading>& readings);
  // The device is gone: nothing in flight will be read.
  void forget();

 private:
  CostModel cost_model_;
  std::map<std::uint64_t, Span> spans_;
  std::map<std::uint64_t, RunTotal> totals_;
  std::uint64_t next_tag_ = 1;
};

// Each slot slicing in a frame gets an equal share of the frame's slicing budget.
double slice_budget_ms(int slicing_slots);

class SlotSlicer {
 public:
  // index: the slot (0: A, 1: B); slot: its setting, band instances and stage timer.
  SlotSlicer(int index, Slot& slot, SliceLedger& ledger);
  ~SlotSlicer();

  // Runs this frame's tiles of the slot's sliced run, about budget_ms of GPU time (starting one when
  // the method is predicted to take longer than the frame's budget); false when the slot runs whole
  // in the frame instead. whole_ms: the GPU time this frame's whole runs are predicted to take: a
  // tile that would take the frame past kFrameGpuLimitMs with them waits for the next frame (never
  // two in a row).
  bool run(ResultPipeline& pipeline, GlTimer* gl_timer, double budget_ms, double whole_ms);
  // Each frame before the runs: a new setting drops the run and its unfinished total.
  void follow_setting();
  // A run in progress, or the setting's last run was sliced (continuous processing starts it again).
  bool slices() const;
  // The predicted GPU time of the slot's whole run on a width × height picture (one never timed at
  // this radius counts as the frame's whole slicing budget), and a tag that times a whole run for the
  // cost model.
  double whole_run_ms(int width, int height) const;
  std::uint64_t tag_whole_run(int width, int height);
  void drop_run();
  // A start (see starter_) waits or runs on the worker; blocks until none does; hands this frame's
  // start to the worker (at the end of the frame's processing, after its CUDA calls).
  bool start_running() const;
  void wait_start();
  void submit_start();
  // The whole-picture result, allocated at the picture's load (not in a frame).
  void reserve_result(int width, int height);
  // The device is gone (after wait_start): the run and its device side go.
  void release();
  // The finished tiles' GPU times (no waiting).
  std::vector<ClockReading> poll();
  // "naive_2d: band 7 of 17" while a run is in progress (empty otherwise), and how far it is (0..1).
  std::string progress() const;
  float fraction_done() const;
  // "sliced into 17 bands": the last finished sliced run, while the slot still wants its setting.
  std::string note() const;
  // The ledger's: a span of this slot's run was read back (its work per step); the run is finished.
  void step_timed(double units_per_step) { timed_step_units_ = units_per_step; }
  void run_finished(const SliceLedger::RunTotal& total);

 private:
  struct Start {
    SlotSetting setting;
    TilePlan plan;
    bool probe = false;
  };
  // The start the worker finished for `setting` (nullopt when none is in: none was asked, it was for
  // an older setting, or the method refused the tile, which refused_ then records); a GPU failure is
  // thrown.
  std::optional<Start> take_start(const SlotSetting& setting);
  // A continuous run may start again with its last plan (see slot_slicer.cpp).
  bool keeps_plan(const SlotSetting& setting, const RunChoice& choice) const;
  // Plans a run for `choice` and queues its start for the worker (submit_start).
  void queue_start(const ResultPipeline& pipeline, const SlotSetting& setting, const RunChoice& choice);
  // The frames' side of a started run: its schedule and its GPU-time total.
  void begin_run(const Start& started, const std::string& method_id);

  int index_;
  Slot& slot_;
  SliceLedger& ledger_;
  SliceSchedule schedule_;
  std::unique_ptr<SlicedRun> run_;
  bool tiles_deferred_ = false;  // the tiles waited last frame for a whole run
  // The work of one step (units per launch) of the slot's latest span read back: a plan whose steps
  // were never timed enqueues one step per frame (below one wave of blocks a step's time does not
  // shrink with its pixels, so the model's extrapolation from the probe's larger tiles can be 5x
  // short: 13 steps predicted 1.9 ms took 11 ms on the H100).
  double timed_step_units_ = 0;
  // Starting a sliced run (its band instance prepared for the tile with its halo, its device images
  // sized) can take tens of milliseconds (cuFFT plans, allocations, a new border's weights): it runs
  // on a worker, as the slots' prepares do, and until its outcome is in the slot keeps its last
  // result and the frame leaves the run alone. Declared after run_: its job uses the run.
  std::optional<Start> starting_;
  std::optional<Start> last_start_;  // what the run was last started with
  std::unique_ptr<SlotPreparer> starter_;
  std::function<AccuracyBound()> start_job_;  // made in the frame, submitted at its end
  std::optional<SlotSetting> refused_;  // a setting whose tile the method refused: it runs whole
  struct Note {
    SlotSetting setting;
    std::string text;
  };
  std::optional<Note> note_;  // the last finished sliced run's, shown while the slot wants its setting
};

}  // namespace gausslab
