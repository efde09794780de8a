#include "comparison/slot_runs.hpp"

#include <cstdio>
#include <stdexcept>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/gl_timer.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "viewer/frame_omissions.hpp"
#include "viewer/frame_trace.hpp"

namespace gausslab {

SlotRuns::SlotRuns(OutputPath best_path, int history_frames)
    : pipeline_(std::make_unique<ResultPipeline>(best_path)),
      lanes_{{{0, history_frames, ledger_}, {1, history_frames, ledger_}}} {
  if (FrameTrace::instance().enabled())
    pipeline_->set_trace_marks([](const char* step) { FrameTrace::instance().mark(step); });
  for (SlotLane& lane : lanes_) lane.slot.set_gpu_methods_run(pipeline_->runs_gpu_methods());
}

SlotRuns::~SlotRuns() {
  try {
    pipeline_->synchronize();  // queued CUDA work may still use the methods' buffers
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
  }
  for (SlotLane& lane : lanes_) lane.slicer.wait_start();
  for (SlotLane& lane : lanes_) lane.slicer.release();
  for (SlotLane& lane : lanes_) lane.slot.set_gpu_methods_run(false);  // frees the instances
}

bool SlotRuns::workers_busy() const {
  for (const SlotLane& lane : lanes_)
    if (lane.slot.worker_running() || lane.slicer.start_running()) return true;
  return false;
}

void SlotRuns::prepare(const FilterProblem& problem) {
  FrameTrace& trace = FrameTrace::instance();
  // Every frame: a GPU method's prepare runs on the slot's worker and is taken in when it is done.
  lane(0).slot.prepare(problem, *pipeline_);
  trace.mark("apply_prepare_a");
  // B's method is prepared when a view shows it (its buffers, plans or spectra may be large).
  if (lane(1).shown) lane(1).slot.prepare(problem, *pipeline_);
  trace.mark("apply_prepare_b");
}

bool SlotRuns::process(const FilterState& applied, const std::shared_ptr<const ImageRgba8>& picture, bool settling,
                       GlTimer& gl, const OnFailure& failed) {
  // GPU methods run in the frame, through the pipeline, or in tiles over several frames when they
  // are slow (slot_slicer.hpp); CPU methods on the worker.
  std::array<ResultPipeline::Job, ResultPipeline::kSlots> jobs{};
  std::array<bool, ResultPipeline::kSlots> gpu_slots{};
  // While a prepare worker runs (cuFFT plans, allocations and frees that wait for the whole
  // device), a CUDA call from the frame could wait with it: the GPU slots keep their last results
  // for those frames instead.
  const bool gpu_paused = workers_busy();
  for (SlotLane& lane : lanes_) {
    Slot& s = lane.slot;
    lane.slicer.follow_setting();
    if (!lane.shown || !s.needs_run(applied.continuous && !settling)) continue;
    if (runs_on_gpu(s.wanted().method, pipeline_->runs_gpu_methods())) {
      gpu_slots[static_cast<std::size_t>(lane.index)] = !gpu_paused;
    } else if (!s.submitted_current() || (!cpu_runner_.busy(lane.index) && !cpu_runner_.result_waiting(lane.index))) {
      // (A result on its way to the frame is not a reason to run the same setting again.)
      cpu_runner_.submit(lane.index, s.wanted(), picture, applied.repeat);
      s.mark_submitted();
    }
  }
  const auto gpu_failed = [&](int i, const std::exception& error) {
    lane(i).slicer.drop_run();
    failed(i, error);
  };
  // The slots slicing in this frame share one budget of GPU time (slot_slicer.cpp), and their tiles
  // make way for the whole runs of the frame when together they would take too long. Pooled runs
  // stay whole (docs/viewer.md).
  const bool pooled = applied.pool != PoolMode::None;
  int slicing = 0;
  for (int i = 0; i < 2; ++i) slicing += gpu_slots[static_cast<std::size_t>(i)] && lane(i).slicer.slices();
  const int width = pipeline_->width(), height = pipeline_->height();
  double whole_ms = 0;  // weighed only in a frame that slices
  if (slicing > 0 && !pooled)
    for (int i = 0; i < 2; ++i)
      if (gpu_slots[static_cast<std::size_t>(i)] && !lane(i).slicer.slices())
        whole_ms += lane(i).slicer.whole_run_ms(width, height);
  const double budget_ms = slice_budget_ms(slicing);
  bool any_whole = false;
  for (int i = 0; i < 2; ++i) {
    if (!gpu_slots[static_cast<std::size_t>(i)]) continue;
    SlotLane& l = lane(i);
    try {
      const bool sliced = !pooled && l.slicer.run(*pipeline_, &gl, budget_ms, whole_ms);
      FrameTrace::instance().mark(i == 0 ? "sliced_a" : "sliced_b");
      if (sliced) continue;
    } catch (const std::exception& error) {
      gpu_failed(i, error);
      continue;
    }
    StageTimer* timer = frame_omissions().stage_timer ? nullptr : &l.slot.timer();  // a measuring aid's
    jobs[static_cast<std::size_t>(i)] = ResultPipeline::Job{l.slot.instance(l.slot.wanted().method), timer,
                                                            pooled ? 0 : l.slicer.tag_whole_run(width, height)};
    any_whole = true;
  }
  const auto each_job = [&](auto&& fn) {
    for (int i = 0; i < 2; ++i)
      if (jobs[static_cast<std::size_t>(i)].method) fn(i);
  };
  if (any_whole && pipeline_->runs_gpu_methods()) {
    try {
      // Repeat × N: the whole pass N times (each a sample of the stage medians).
      for (int r = 0; r < applied.repeat; ++r) {
        each_job([&](int i) { lane(i).slot.timer().begin_frame(); });
        if (pooled)
          pipeline_->process_pooled(jobs, applied.pool, &gl);
        else
          pipeline_->process(jobs, &gl);
        FrameTrace::instance().mark("pipeline");
        each_job([&](int i) { lane(i).slot.timer().end_frame(); });
      }
      each_job([&](int i) { lane(i).slot.mark_computed(); });
    } catch (const std::exception& error) {
      each_job([&](int i) { lane(i).slot.timer().end_frame(); });
      each_job([&](int i) { gpu_failed(i, error); });
    }
  }
  FrameTrace::instance().mark("process_rest");
  if (gpu_paused) return false;  // event queries too: read in a later frame
  try {
    collect_gpu_times();
  } catch (const CudaError& error) {
    failed(-1, error);
  }
  for (SlotLane& lane : lanes_) lane.slot.timer().poll();
  for (SlotLane& lane : lanes_) lane.slicer.submit_start();
  return true;
}

void SlotRuns::collect_gpu_times() {
  if (!pipeline_->runs_gpu_methods()) return;
  std::vector<ClockReading> readings = pipeline_->take_run_times();
  for (SlotLane& lane : lanes_)
    for (const ClockReading& reading : lane.slicer.poll()) readings.push_back(reading);
  ledger_.learn(readings);
}

void SlotRuns::take_cpu_results(GlTimer& gl, const OnFailure& failed) {
  for (CpuRunResult& result : cpu_runner_.take_results()) {
    Slot& s = lane(result.slot).slot;
    if (result.setting != s.wanted()) continue;  // an older setting: of no use
    if (!result.error.empty()) {
      failed(result.slot, std::runtime_error(result.error));
      continue;
    }
    for (double ms : result.run_ms) {
      s.timer().begin_frame();
      s.timer().record_host("filter (cpu)", ms);
      s.timer().end_frame();
    }
    show_host_image(result.slot, std::make_shared<const ImageRgba8>(std::move(result.image)), gl);
  }
}

void SlotRuns::show_host_image(int slot, std::shared_ptr<const ImageRgba8> image, GlTimer& gl) {
  pipeline_->show_host_result(slot, std::move(image), &gl);
  lane(slot).uploading = lane(slot).slot.wanted();  // computed once in (continue_host_uploads, this frame on)
}

void SlotRuns::continue_host_uploads(GlTimer& gl) {
  if (lane(0).uploading || lane(1).uploading) {
    const auto start = std::chrono::steady_clock::now();
    pipeline_->continue_host_uploads(&gl);
    if (FrameTrace::instance().enabled())
      FrameTrace::instance().note(
          "host upload band: " +
          std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()) +
          " ms" + (pipeline_->host_upload_pending(0) || pipeline_->host_upload_pending(1) ? "" : " (the last)"));
  }
  for (SlotLane& lane : lanes_) {
    if (!lane.uploading || pipeline_->host_upload_pending(lane.index)) continue;
    // The slot counts as computed once its texture holds the result (a save reads the texture).
    if (lane.slot.wanted() == *lane.uploading) lane.slot.mark_computed();
    lane.uploading.reset();
  }
}

void SlotRuns::reserve_sliced_results() {
  if (!pipeline_->runs_gpu_methods()) return;
  for (SlotLane& lane : lanes_) lane.slicer.wait_start();  // a start may be using a run; set_source finished every tile
  for (SlotLane& lane : lanes_) lane.slicer.reserve_result(pipeline_->width(), pipeline_->height());
}

void SlotRuns::leave_the_gpu(const std::string& why) {
  for (SlotLane& lane : lanes_) lane.slot.wait_preparing();  // no prepare may still use the device
  for (SlotLane& lane : lanes_) lane.slicer.wait_start();
  pipeline_->fall_back_to_cpu(why);
  for (SlotLane& lane : lanes_) lane.slicer.release();
  ledger_.forget();
  for (SlotLane& lane : lanes_) lane.slot.release_instances();
}

void SlotRuns::finish() {
  pipeline_->synchronize();
  collect_gpu_times();  // every sliced run finished so far goes into its slot's stages
  for (SlotLane& lane : lanes_) lane.slot.timer().flush();
}

}  // namespace gausslab
