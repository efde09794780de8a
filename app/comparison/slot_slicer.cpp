#include "comparison/slot_slicer.hpp"

#include <cmath>
#include <cstdio>

#include "comparison/slot_preparer.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "viewer/frame_trace.hpp"

namespace gausslab {

namespace {

// GPU time the sliced runs of a frame may take together, and of one tile: a run predicted within
// the frame's budget runs whole, a slower one in tiles of half of it, so that when both slots slice
// (two slow methods, a blink between them) each enqueues one tile and the frame's GPU work stays
// that of one slot slicing. On the H100 a 2 ms budget per slot, 4 ms with both slicing plus the
// numbers worker's tile and the display, made frames wait in the pacer at 2.5-3x the median of a
// 4096x4096 session (docs/results/h100/viewer-session.md).
constexpr double kFrameSliceBudgetMs = 2.0;
constexpr double kSliceTileMs = kFrameSliceBudgetMs / 2;
// The GPU time a frame's whole runs and tiles may take together before the tiles wait a frame. A
// tile's block cannot be shorter than one step of its window (at radius 128 shared_2d's whole-window
// tiles took 3.3-3.9 ms on the H100 whatever their size, before tiles went in steps of bands:
// bands_per_step). Enqueued in the frame that also ran another slot's first whole run (the step
// to the split view, recursive on A), such a frame took 6.5-7.2 ms against 5.5 for the heaviest of
// the frames after it (docs/results/h100/viewer-session.md).
constexpr double kFrameGpuLimitMs = 2 * kFrameSliceBudgetMs;

// A sliced run keeps its plan while a new choice's tile is within 1.5x of it on each side.
bool close_tiles(const TileSize& kept, const TileSize& wanted) {
  const double w = static_cast<double>(wanted.width) / kept.width, h = static_cast<double>(wanted.height) / kept.height;
  return w >= 1 / 1.5 && w <= 1.5 && h >= 1 / 1.5 && h <= 1.5;
}

// The registry's description of method `method` (an index into method_registry()).
const MethodInfo& method_info(int method) { return method_registry().at(static_cast<std::size_t>(method)).info; }

// A whole run's work in the cost model's units: the picture's pixels × window_cost.
double whole_run_units(int width, int height, const std::string& method_id, int radius) {
  return static_cast<double>(width) * height * window_cost(method_id, radius);
}

}  // namespace

void SliceLedger::learn(const std::vector<ClockReading>& readings) {
  for (const ClockReading& reading : readings) {
    const auto span = spans_.find(reading.tag);
    if (span == spans_.end()) continue;
    const Span& s = span->second;
    if (FrameTrace::instance().enabled()) {  // what the GPU took, against what the model foresaw
      const std::optional<double> foreseen = cost_model_.predict_ms(s.method, s.units, s.launches);
      char text[160];
      std::snprintf(text, sizeof text, "gpu %s %s%s: %.3f ms (predicted %.3f)", s.slot,
                    s.method.c_str(), s.run ? " tiles" : "", reading.ms, foreseen ? *foreseen : -1.0);
      FrameTrace::instance().note(text);
    }
    cost_model_.learn(s.method, s.radius, s.units, reading.ms, s.launches);
    if (s.run) s.slicer->step_timed(s.units / s.launches);
    const auto total = totals_.find(s.run);
    spans_.erase(span);
    if (total == totals_.end()) continue;
    RunTotal& t = total->second;
    t.ms += reading.ms;
    ++t.read;
    if (!t.finished || t.read < t.steps) continue;
    t.slicer->run_finished(t);
    totals_.erase(total);
  }
  // Spans whose events were never recorded or read (a full ring, a dropped run) are forgotten.
  while (!spans_.empty() && spans_.begin()->first + 4096 < next_tag_) spans_.erase(spans_.begin());
  while (!totals_.empty() && totals_.begin()->first + 4096 < next_tag_) totals_.erase(totals_.begin());
}

void SliceLedger::forget() {
  spans_.clear();
  totals_.clear();
}

SlotSlicer::SlotSlicer(int index, Slot& slot, SliceLedger& ledger) : index_(index), slot_(slot), ledger_(ledger) {}

SlotSlicer::~SlotSlicer() {
  wait_start();  // its job uses the run
}

void SlotSlicer::run_finished(const SliceLedger::RunTotal& t) {
  // A finished run, every span read: its GPU time (gather, filter and copy of every tile) is one
  // sample of the slot's stage "sliced", while the slot still shows that setting.
  if (!t.untimed && slot_.wanted() == t.setting) {
    StageTimer& timer = slot_.timer();
    timer.begin_frame();
    timer.record_host("sliced", t.ms);
    timer.end_frame();
  }
  note_ = Note{t.setting, "sliced into " + std::to_string(t.tiles) + (t.row_bands ? " bands" : " tiles")};
}

std::string SlotSlicer::note() const { return note_ && note_->setting == slot_.wanted() ? note_->text : std::string(); }

std::uint64_t SlotSlicer::tag_whole_run(int width, int height) {
  const SlotSetting& s = slot_.wanted();
  const std::string& id = method_info(s.method).id;
  const std::uint64_t tag = ledger_.new_tag();
  const int radius = s.params.radius();
  ledger_.add_span(tag, SliceLedger::Span{this, index_ == 0 ? "A" : "B", id, whole_run_units(width, height, id, radius),
                                          0, radius});
  return tag;
}

void SlotSlicer::follow_setting() {
  // drop_if_changed makes the schedule inactive, so drop_run would keep the total: it goes here.
  if (schedule_.drop_if_changed(slot_.wanted())) ledger_.drop_run(schedule_.run());
}

void SlotSlicer::drop_run() {
  if (schedule_.active()) ledger_.drop_run(schedule_.run());
  schedule_.drop();
  starting_.reset();  // a start still on the worker is not taken
}

bool SlotSlicer::start_running() const { return starter_ && starter_->busy(); }

void SlotSlicer::submit_start() {
  if (!start_job_) return;
  if (starting_) starter_->submit(starting_->setting, std::move(start_job_));
  start_job_ = nullptr;
}

void SlotSlicer::wait_start() {
  if (starter_) starter_->wait_idle();
}

void SlotSlicer::reserve_result(int width, int height) {
  if (!run_) run_ = std::make_unique<SlicedRun>();
  try {
    run_->reserve_result(width, height);
  } catch (const CudaOutOfMemory&) {
    // The first sliced run's start allocates it, or says why it cannot.
  }
}

void SlotSlicer::release() {
  drop_run();
  start_job_ = nullptr;
  run_.reset();
}

std::vector<ClockReading> SlotSlicer::poll() { return run_ ? run_->poll() : std::vector<ClockReading>{}; }

std::optional<SlotSlicer::Start> SlotSlicer::take_start(const SlotSetting& setting) {
  std::optional<Start> asked = std::move(starting_);
  starting_.reset();
  if (!asked || asked->setting != setting) return std::nullopt;  // none, or for an older setting
  std::optional<PrepareOutcome> outcome = starter_->take(setting);
  if (!outcome) return std::nullopt;  // lost: started again
  if (outcome->failure) {
    try {
      std::rethrow_exception(outcome->failure);
    } catch (const std::invalid_argument&) {  // the method refuses the tile: it runs whole, as before
    } catch (const CudaOutOfMemory&) {
    }  // anything else is a GPU failure (the caller's)
    refused_ = setting;
    return std::nullopt;
  }
  return asked;
}

bool SlotSlicer::keeps_plan(const SlotSetting& setting, const RunChoice& choice) const {
  // Continuous processing starts the same setting's run again as soon as the last one is enqueued:
  // it keeps the prepared tile plan while the new choice is close to it (a plan a few rows different
  // would re-prepare the band instance and resize the run's images every run), but not one the model
  // has since found far off (a first measurement disturbed by other work).
  return last_start_ && last_start_->setting == setting && !last_start_->probe && choice.shape == RunShape::Sliced &&
         run_ && run_->started() && close_tiles(last_start_->plan.tile, choice.tile);
}

void SlotSlicer::queue_start(const ResultPipeline& pipeline, const SlotSetting& setting, const RunChoice& choice) {
  if (!run_) run_ = std::make_unique<SlicedRun>();
  SlicedRun* run = run_.get();
  // Re-preparing or resizing may free buffers that queued tiles still use: start only once the last
  // tiles are done (an event query; the frame does not wait: the slot keeps its last result). The
  // method's scratch waits for its own last run (GpuMethod's fence), and the copy of a finished
  // result into the slot's texture is on the same stream, ahead of the next tile.
  if (run->started() && run->busy()) return;
  const bool core_only = method_info(setting.method).computes_core_from_halo;
  Start start{setting, plan_tiles(pipeline.width(), pipeline.height(), setting.params.radius(), choice.tile, core_only),
              choice.shape == RunShape::Probe};
  Method* band = slot_.band_instance(setting.method);
  if (!starter_) starter_ = std::make_unique<SlotPreparer>(index_ == 0 ? "sliced start A" : "sliced start B");
  const int device = cuda_device_status().device;
  last_start_.reset();  // the run is re-prepared: its old plan goes
  // Handed to the worker at the end of the frame's processing (submit_start): started now, its
  // allocations would hold up this frame's own CUDA calls still to come (12 ms on the H100).
  start_job_ = [run, band, plan = start.plan, params = setting.params, device] {
    GAUSSLAB_CUDA_CHECK(cudaSetDevice(device));  // this thread's device
    run->start(*band, plan, params);
    return AccuracyBound{};
  };
  starting_ = std::move(start);
}

void SlotSlicer::begin_run(const Start& started, const std::string& method_id) {
  last_start_ = started;
  const TilePlan& plan = started.plan;
  if (FrameTrace::instance().enabled())  // the text is made only for the trace
    FrameTrace::instance().note("sliced " + std::string(index_ == 0 ? "A " : "B ") + method_id + " starts: " +
                                (started.probe ? "probe " : "") + std::to_string(plan.tile.width) + "x" +
                                std::to_string(plan.tile.height) + " tiles, " + std::to_string(plan.tiles.size()));
  const std::uint64_t run_id = ledger_.new_tag();
  schedule_.start(started.setting, run_->steps(), run_->steps_per_tile(), started.probe, plan.row_bands(), run_id);
  SliceLedger::RunTotal total;
  total.slicer = this;
  total.setting = started.setting;
  total.tiles = static_cast<int>(plan.tiles.size());
  total.row_bands = plan.row_bands();
  ledger_.run_total(run_id) = total;
}

bool SlotSlicer::slices() const {
  return schedule_.active() || (last_start_ && last_start_->setting == slot_.wanted());
}

double SlotSlicer::whole_run_ms(int width, int height) const {
  const SlotSetting& s = slot_.wanted();
  const std::string& id = method_info(s.method).id;
  const int radius = s.params.radius();
  const std::optional<double> ms = ledger_.cost_model().predict_ms(id, whole_run_units(width, height, id, radius));
  return ms && ledger_.cost_model().timed_at(id, radius) ? *ms : kFrameSliceBudgetMs;
}

bool SlotSlicer::run(ResultPipeline& pipeline, GlTimer* gl_timer, double budget_ms, double whole_ms) {
  const SlotSetting setting = slot_.wanted();
  const MethodInfo& info = method_info(setting.method);
  const int radius = setting.params.radius();
  const CostModel& model = ledger_.cost_model();
  // A probe gives way to the real choice as soon as the method's speed at this radius is known.
  const bool timed_here = model.timed_at(info.id, radius);
  if (schedule_.active() && schedule_.probe() && timed_here) drop_run();

  if (!schedule_.active()) {
    if (refused_ == setting) return false;
    // A start on the worker: the run is the worker's until its outcome is in.
    if (start_running()) return true;
    std::optional<Start> started = take_start(setting);
    if (refused_ == setting) return false;
    if (!started) {
      const RunChoice choice = choose_run(model, info.id, info.same_bytes_in_bands, pipeline.width(), pipeline.height(),
                                          radius, kFrameSliceBudgetMs, timed_here, kSliceTileMs,
                                          info.computes_core_from_halo);
      if (choice.shape == RunShape::Whole) {
        // A run that was sliced until the model learned it fits the frame: its last steps finish
        // first (queued behind them, the whole run's frame took 5.3 ms against a median of 2.5 after
        // 'view b' on the H100); the slot shows its last result meanwhile.
        return run_ && run_->busy();
      }
      if (!keeps_plan(setting, choice)) {
        queue_start(pipeline, setting, choice);
        return true;  // the slot keeps its last result while the worker starts the run
      }
      started = last_start_;
    }
    begin_run(*started, info.id);
  }

  SlicedRun& run = *run_;
  if (run.busy()) return true;  // the last tiles are still running: none are queued behind them
  // A step is a tile, or an equal part of its window's bands (SlicedRun::steps_per_tile).
  const double step_units = static_cast<double>(run.plan().computed_pixels_per_tile()) *
                            window_cost(info.id, radius) / run.steps_per_tile();
  // At a radius never timed the model extrapolates from other radii (after a jump from sigma 32 to
  // 4 its tiles took twice their budget on the H100): one step per frame until a time is read back.
  const std::optional<double> step_ms = model.predict_ms(info.id, step_units);
  const bool plan_timed = std::abs(timed_step_units_ - step_units) <= 1e-6 * step_units;
  const int count = schedule_.probe() || !timed_here || !plan_timed
                        ? 1
                        : tiles_this_frame(step_ms, schedule_.remaining(), budget_ms);
  // With this frame's whole runs, the tiles would take the frame past kFrameGpuLimitMs: they wait
  // for the next frame, unless they waited in the last one.
  const std::optional<double> tiles_ms = step_ms ? std::optional<double>(*step_ms * count) : std::nullopt;
  tiles_deferred_ = tiles_wait_for_whole_runs(whole_ms, tiles_ms, budget_ms, kFrameGpuLimitMs, tiles_deferred_);
  if (tiles_deferred_) return true;
  if (count > 1 && FrameTrace::instance().enabled())
    FrameTrace::instance().note("sliced " + info.id + ": " + std::to_string(count) + " steps this frame");
  const std::uint64_t tag = ledger_.new_tag();
  const bool timed = run.run_steps(pipeline.device_source(), schedule_.next(), count, tag, pipeline.stream());
  SliceLedger::RunTotal& total = ledger_.run_total(schedule_.run());
  if (timed) {
    ledger_.add_span(tag, SliceLedger::Span{this, index_ == 0 ? "A" : "B", info.id, step_units * count, schedule_.run(),
                                            radius, count});
    ++total.steps;
  } else {
    total.untimed = true;
  }
  schedule_.advance(count);
  if (schedule_.all_enqueued()) {
    pipeline.show_device_result(index_, run.result(), gl_timer);
    slot_.mark_computed();
    total.finished = true;
    schedule_.drop();  // continuous runs start the next one in the next frame
  }
  return true;
}

std::string SlotSlicer::progress() const {
  const int method = slot_.wanted().method;
  if (!schedule_.active() || method < 0) return {};
  return schedule_.progress(method_info(method).id);
}

float SlotSlicer::fraction_done() const {
  return schedule_.steps() > 0 ? static_cast<float>(schedule_.next()) / schedule_.steps() : 0.0f;
}

double slice_budget_ms(int slicing_slots) { return kFrameSliceBudgetMs / (slicing_slots > 1 ? slicing_slots : 1); }

}  // namespace gausslab
