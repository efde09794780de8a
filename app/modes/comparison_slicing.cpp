// The comparison's slow GPU methods in slices (render/slicing.hpp has the rules, render/sliced_run.hpp
// the device side, slice_schedule.hpp the frames' view). A band-exact GPU method whose whole run is
// predicted longer than kFrameSliceBudgetMs runs in tiles, the slots slicing in a frame sharing one
// budget of GPU work; the slot shows its last finished result until the last tile is done, then
// the new one.
#include <cmath>
#include <cstdio>

#include "modes/comparison_mode.hpp"
#include "viewer/frame_trace.hpp"
#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "gausslab/render/sliced_run.hpp"
#include "comparison/slot_preparer.hpp"

namespace gausslab {

namespace {

// GPU time the sliced runs of a frame may take together, and of one tile: a run predicted within
// the frame's budget runs whole, a slower one in tiles of half of it, so that when both slots slice
// (two slow methods, a blink between them) each enqueues one tile and the frame's GPU work stays
// that of one slot slicing. On the H100 a 2 ms budget per slot, 4 ms with both slicing plus the
// numbers worker's tile and the display, made frames wait in the pacer at 2.5-3x the median of a
// 4096x4096 session (docs/results/viewer-session/).
constexpr double kFrameSliceBudgetMs = 2.0;
constexpr double kSliceTileMs = kFrameSliceBudgetMs / 2;
// The GPU time a frame's whole runs and tiles may take together before the tiles wait a frame. A
// tile's block cannot be shorter than one step of its window (at radius 128 shared_2d's whole-window
// tiles took 3.3-3.9 ms on the H100 whatever their size, before tiles went in steps of bands:
// bands_per_step). Enqueued in the frame that also ran another slot's first whole run (the step
// to the split view, recursive on A), such a frame took 6.5-7.2 ms against 5.5 for the heaviest of
// the frames after it (docs/results/viewer-session/).
constexpr double kFrameGpuLimitMs = 2 * kFrameSliceBudgetMs;

// A sliced run keeps its plan while a new choice's tile is within 1.5x of it on each side.
bool close_tiles(const TileSize& kept, const TileSize& wanted) {
  const double w = static_cast<double>(wanted.width) / kept.width, h = static_cast<double>(wanted.height) / kept.height;
  return w >= 1 / 1.5 && w <= 1.5 && h >= 1 / 1.5 && h <= 1.5;
}

// The registry's description of method `method` (an index into method_registry()).
const MethodInfo& method_info(int method) { return method_registry().at(static_cast<std::size_t>(method)).info; }

}  // namespace

double ComparisonMode::whole_run_units(const std::string& method_id, int radius) const {
  return static_cast<double>(pipeline_->width()) * pipeline_->height() * window_cost(method_id, radius);
}

std::uint64_t ComparisonMode::tag_whole_run(int index) {
  const SlotSetting& s = slot(index).wanted();
  const std::string& id = method_info(s.method).id;
  const std::uint64_t tag = next_tag_++;
  spans_[tag] = TimedSpan{index, id, whole_run_units(id, s.params.radius()), 0, s.params.radius()};
  return tag;
}

void ComparisonMode::drop_sliced_run(int index) {
  if (schedule_[index].active()) sliced_totals_.erase(schedule_[index].run());
  schedule_[index].drop();
  sliced_starting_[index].reset();  // a start still on the worker is not taken
}

bool ComparisonMode::sliced_start_running() const {
  for (const std::unique_ptr<SlotPreparer>& starter : sliced_starter_)
    if (starter && starter->busy()) return true;
  return false;
}

void ComparisonMode::submit_sliced_starts() {
  for (int i = 0; i < 2; ++i) {
    if (!sliced_start_job_[i]) continue;
    if (sliced_starting_[i]) sliced_starter_[i]->submit(sliced_starting_[i]->setting, std::move(sliced_start_job_[i]));
    sliced_start_job_[i] = nullptr;
  }
}

void ComparisonMode::wait_sliced_starts() {
  for (const std::unique_ptr<SlotPreparer>& starter : sliced_starter_)
    if (starter) starter->wait_idle();
}

std::optional<ComparisonMode::SlicedStart> ComparisonMode::take_sliced_start(int index, const SlotSetting& setting) {
  std::optional<SlicedStart> asked = std::move(sliced_starting_[index]);
  sliced_starting_[index].reset();
  if (!asked || asked->setting != setting) return std::nullopt;  // none, or for an older setting
  std::optional<PrepareOutcome> outcome = sliced_starter_[index]->take(setting);
  if (!outcome) return std::nullopt;  // lost: started again
  if (outcome->failure) {
    try {
      std::rethrow_exception(outcome->failure);
    } catch (const std::invalid_argument&) {  // the method refuses the tile: it runs whole, as before
    } catch (const CudaOutOfMemory&) {
    }  // anything else is a GPU failure (process's gpu_failed)
    slice_refused_[index] = setting;
    return std::nullopt;
  }
  return asked;
}

bool ComparisonMode::keeps_plan(int index, const SlotSetting& setting, const RunChoice& choice) const {
  // Continuous processing starts the same setting's run again as soon as the last one is enqueued:
  // it keeps the prepared tile plan while the new choice is close to it (a plan a few rows different
  // would re-prepare the band instance and resize the run's images every run), but not one the model
  // has since found far off (a first measurement disturbed by other work).
  const std::optional<SlicedStart>& last = sliced_last_start_[index];
  return last && last->setting == setting && !last->probe && choice.shape == RunShape::Sliced && sliced_[index] &&
         sliced_[index]->started() && close_tiles(last->plan.tile, choice.tile);
}

void ComparisonMode::queue_sliced_start(int index, const SlotSetting& setting, const RunChoice& choice) {
  if (!sliced_[index]) sliced_[index] = std::make_unique<SlicedRun>();
  SlicedRun* run = sliced_[index].get();
  // Re-preparing or resizing may free buffers that queued tiles still use: start only once the last
  // tiles are done (an event query; the frame does not wait: the slot keeps its last result). The
  // method's scratch waits for its own last run (GpuMethod's fence), and the copy of a finished
  // result into the pixel buffer is on the same stream, ahead of the next tile.
  if (run->started() && run->busy()) return;
  const bool core_only = method_info(setting.method).computes_core_from_halo;
  SlicedStart start{setting,
                    plan_tiles(pipeline_->width(), pipeline_->height(), setting.params.radius(), choice.tile, core_only),
                    choice.shape == RunShape::Probe};
  Method* band = slot(index).band_instance(setting.method);
  if (!sliced_starter_[index])
    sliced_starter_[index] = std::make_unique<SlotPreparer>(index == 0 ? "sliced start A" : "sliced start B");
  const int device = cuda_device_status().device;
  sliced_last_start_[index].reset();  // the run is re-prepared: its old plan goes
  // Handed to the worker at the end of process (submit_sliced_starts): started now, its allocations
  // would hold up this frame's own CUDA calls still to come (12 ms on the H100).
  sliced_start_job_[index] = [run, band, plan = start.plan, params = setting.params, device] {
    GAUSSLAB_CUDA_CHECK(cudaSetDevice(device));  // this thread's device
    run->start(*band, plan, params);
    return AccuracyBound{};
  };
  sliced_starting_[index] = std::move(start);
}

void ComparisonMode::begin_sliced_run(int index, const SlicedStart& started, const std::string& method_id) {
  sliced_last_start_[index] = started;
  const TilePlan& plan = started.plan;
  if (FrameTrace::instance().enabled())  // the text is made only for the trace
    FrameTrace::instance().note("sliced " + std::string(index == 0 ? "A " : "B ") + method_id + " starts: " +
                                (started.probe ? "probe " : "") + std::to_string(plan.tile.width) + "x" +
                                std::to_string(plan.tile.height) + " tiles, " + std::to_string(plan.tiles.size()));
  const std::uint64_t run_id = next_tag_++;
  const SlicedRun& run = *sliced_[index];
  schedule_[index].start(started.setting, run.steps(), run.steps_per_tile(), started.probe, plan.row_bands(), run_id);
  SlicedTotal total;
  total.slot = index;
  total.setting = started.setting;
  total.tiles = static_cast<int>(plan.tiles.size());
  total.row_bands = plan.row_bands();
  sliced_totals_[run_id] = total;
}

bool ComparisonMode::slices(int index) const {
  const std::optional<SlicedStart>& last = sliced_last_start_[index];
  return schedule_[index].active() || (last && last->setting == slot(index).wanted());
}

double ComparisonMode::slice_budget_ms(int slicing_slots) {
  return kFrameSliceBudgetMs / (slicing_slots > 1 ? slicing_slots : 1);
}

double ComparisonMode::whole_run_ms(int index) const {
  const SlotSetting& s = slot(index).wanted();
  const std::string& id = method_info(s.method).id;
  const int radius = s.params.radius();
  const std::optional<double> ms = cost_model_.predict_ms(id, whole_run_units(id, radius));
  return ms && cost_model_.timed_at(id, radius) ? *ms : kFrameSliceBudgetMs;
}

bool ComparisonMode::run_sliced(int index, FrameContext& frame, double budget_ms, double whole_ms) {
  if (applied_.pool != PoolMode::None) return false;  // pooled runs stay whole (docs/viewer.md)
  Slot& s = slot(index);
  const SlotSetting setting = s.wanted();
  const MethodInfo& info = method_info(setting.method);
  const int radius = setting.params.radius();
  SliceSchedule& schedule = schedule_[index];
  // A probe gives way to the real choice as soon as the method's speed at this radius is known.
  const bool timed_here = cost_model_.timed_at(info.id, radius);
  if (schedule.active() && schedule.probe() && timed_here) drop_sliced_run(index);

  if (!schedule.active()) {
    if (slice_refused_[index] == setting) return false;
    // A start on the worker: the run is the worker's until its outcome is in.
    if (sliced_starter_[index] && sliced_starter_[index]->busy()) return true;
    std::optional<SlicedStart> started = take_sliced_start(index, setting);
    if (slice_refused_[index] == setting) return false;
    if (!started) {
      const RunChoice choice = choose_run(cost_model_, info.id, info.same_bytes_in_bands, pipeline_->width(),
                                          pipeline_->height(), radius, kFrameSliceBudgetMs, timed_here, kSliceTileMs,
                                          info.computes_core_from_halo);
      if (choice.shape == RunShape::Whole) {
        // A run that was sliced until the model learned it fits the frame: its last steps finish
        // first (queued behind them, the whole run's frame took 5.3 ms against a median of 2.5 after
        // 'view b' on the H100); the slot shows its last result meanwhile.
        return sliced_[index] && sliced_[index]->busy();
      }
      if (!keeps_plan(index, setting, choice)) {
        queue_sliced_start(index, setting, choice);
        return true;  // the slot keeps its last result while the worker starts the run
      }
      started = sliced_last_start_[index];
    }
    begin_sliced_run(index, *started, info.id);
  }

  SlicedRun& run = *sliced_[index];
  if (run.busy()) return true;  // the last tiles are still running: none are queued behind them
  // A step is a tile, or an equal part of its window's bands (SlicedRun::steps_per_tile).
  const double step_units = static_cast<double>(run.plan().computed_pixels_per_tile()) *
                            window_cost(info.id, radius) / run.steps_per_tile();
  // At a radius never timed the model extrapolates from other radii (after a jump from sigma 32 to
  // 4 its tiles took twice their budget on the H100): one step per frame until a time is read back.
  const std::optional<double> step_ms = cost_model_.predict_ms(info.id, step_units);
  const bool plan_timed = std::abs(timed_step_units_[index] - step_units) <= 1e-6 * step_units;
  const int count = schedule.probe() || !timed_here || !plan_timed
                        ? 1
                        : tiles_this_frame(step_ms, schedule.remaining(), budget_ms);
  // With this frame's whole runs, the tiles would take the frame past kFrameGpuLimitMs: they wait
  // for the next frame, unless they waited in the last one.
  const std::optional<double> tiles_ms = step_ms ? std::optional<double>(*step_ms * count) : std::nullopt;
  tiles_deferred_[index] =
      tiles_wait_for_whole_runs(whole_ms, tiles_ms, budget_ms, kFrameGpuLimitMs, tiles_deferred_[index]);
  if (tiles_deferred_[index]) return true;
  if (count > 1 && FrameTrace::instance().enabled())
    FrameTrace::instance().note("sliced " + info.id + ": " + std::to_string(count) + " steps this frame");
  const std::uint64_t tag = next_tag_++;
  const bool timed = run.run_steps(pipeline_->device_source(), schedule.next(), count, tag, pipeline_->stream());
  SlicedTotal& total = sliced_totals_[schedule.run()];
  if (timed) {
    spans_[tag] = TimedSpan{index, info.id, step_units * count, schedule.run(), radius, count};
    ++total.steps;
  } else {
    total.untimed = true;
  }
  schedule.advance(count);
  if (schedule.all_enqueued()) {
    pipeline_->show_device_result(index, run.result(), &frame.gl_timer);
    s.mark_computed();
    total.finished = true;
    schedule.drop();  // continuous runs start the next one in the next frame
  }
  return true;
}

void ComparisonMode::collect_gpu_times() {
  if (!pipeline_->runs_gpu_methods()) return;
  std::vector<ClockReading> readings = pipeline_->take_run_times();
  for (const std::unique_ptr<SlicedRun>& run : sliced_)
    if (run)
      for (const ClockReading& reading : run->poll()) readings.push_back(reading);
  for (const ClockReading& reading : readings) {
    const auto span = spans_.find(reading.tag);
    if (span == spans_.end()) continue;
    if (FrameTrace::instance().enabled()) {  // what the GPU took, against what the model foresaw
      const std::optional<double> foreseen =
          cost_model_.predict_ms(span->second.method, span->second.units, span->second.launches);
      char text[160];
      std::snprintf(text, sizeof text, "gpu %s %s%s: %.3f ms (predicted %.3f)", span->second.slot == 0 ? "A" : "B",
                    span->second.method.c_str(), span->second.run ? " tiles" : "", reading.ms, foreseen ? *foreseen : -1.0);
      FrameTrace::instance().note(text);
    }
    cost_model_.learn(span->second.method, span->second.radius, span->second.units, reading.ms, span->second.launches);
    if (span->second.run) timed_step_units_[span->second.slot] = span->second.units / span->second.launches;
    const auto total = sliced_totals_.find(span->second.run);
    spans_.erase(span);
    if (total == sliced_totals_.end()) continue;
    SlicedTotal& t = total->second;
    t.ms += reading.ms;
    ++t.read;
    if (!t.finished || t.read < t.steps) continue;
    // A finished run, every span read: its GPU time (gather, filter and copy of every tile) is one
    // sample of the slot's stage "sliced", while the slot still shows that setting.
    if (!t.untimed && slot(t.slot).wanted() == t.setting) {
      StageTimer& timer = slot(t.slot).timer();
      timer.begin_frame();
      timer.record_host("sliced", t.ms);
      timer.end_frame();
    }
    sliced_note_setting_[t.slot] = t.setting;
    sliced_note_[t.slot] = "sliced into " + std::to_string(t.tiles) + (t.row_bands ? " bands" : " tiles");
    sliced_totals_.erase(total);
  }
  // Spans whose events were never recorded or read (a full ring, a dropped run) are forgotten.
  while (!spans_.empty() && spans_.begin()->first + 4096 < next_tag_) spans_.erase(spans_.begin());
  while (!sliced_totals_.empty() && sliced_totals_.begin()->first + 4096 < next_tag_)
    sliced_totals_.erase(sliced_totals_.begin());
}

std::string ComparisonMode::sliced_progress(int index) const {
  const int method = slot(index).wanted().method;
  if (!schedule_[index].active() || method < 0) return {};
  return schedule_[index].progress(method_info(method).id);
}

}  // namespace gausslab
