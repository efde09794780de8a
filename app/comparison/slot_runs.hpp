#pragma once
// The two slots at work: the ResultPipeline that shows their results (slot 0 is A, 1 is B), each
// slot's lane, the CPU methods' worker and the ledger of GPU times. It runs what the slots want
// (GPU methods in the frame, whole or in slices; CPU methods on the worker) and takes finished
// results into the textures; what a slot should hold, and what to do when a run fails, is the
// comparison's (comparison.hpp): failures are handed to it as they happen.
#include <array>
#include <functional>
#include <memory>
#include <string>

#include "comparison/cpu_slot_runner.hpp"
#include "comparison/slot_lane.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class GlTimer;

class SlotRuns {
 public:
  // A slot's run failed (an exception from a GPU run, or a CPU method's message as a runtime_error).
  using OnFailure = std::function<void(int slot, const std::exception& error)>;

  // Needs the OpenGL context current (the pipeline's textures).
  SlotRuns(OutputPath best_path, int history_frames);
  ~SlotRuns();  // waits for queued GPU work and the workers; frees the method instances first
  SlotRuns(const SlotRuns&) = delete;
  SlotRuns& operator=(const SlotRuns&) = delete;

  SlotLane& lane(int slot) { return lanes_[static_cast<std::size_t>(slot)]; }
  const SlotLane& lane(int slot) const { return lanes_[static_cast<std::size_t>(slot)]; }
  ResultPipeline& pipeline() { return *pipeline_; }
  const ResultPipeline& pipeline() const { return *pipeline_; }
  const CpuSlotRunner& cpu_runner() const { return cpu_runner_; }

  // Prepares the methods the slots want for `problem` (A always, B when a view shows it); a GPU
  // method's prepare runs on its slot's worker and is taken in when done.
  void prepare(const FilterProblem& problem);
  // Runs what needs running this frame with the setting `applied`: GPU methods through the pipeline
  // (repeat × N, pooled when asked) or in slices, CPU methods handed to the worker. settling: no
  // continuous reprocessing. False when the frame left the GPU alone (a prepare or a sliced start
  // ran on a worker): its times and starts wait for a later frame.
  bool process(const FilterState& applied, const std::shared_ptr<const ImageRgba8>& picture, bool settling,
               GlTimer& gl, const OnFailure& failed);
  // The CPU methods' finished results for the settings still wanted, their times into the stages.
  void take_cpu_results(GlTimer& gl, const OnFailure& failed);
  // A host image into slot `slot` for its wanted setting, a band per frame (ResultPipeline::
  // show_host_result); the slot counts as computed once the last band is in.
  void show_host_image(int slot, std::shared_ptr<const ImageRgba8> image, GlTimer& gl);
  void continue_host_uploads(GlTimer& gl);
  // Each slot's sliced run allocates its whole-picture result at the picture's load, not in a frame.
  void reserve_sliced_results();
  // The device is unusable: every GPU resource goes, the pipeline goes on as the cpu path.
  void leave_the_gpu(const std::string& why);
  // The end of an automated run: queued GPU work done, every sliced run's time in its stages.
  void finish();
  void frame_drawn() { cpu_runner_.frame_drawn(); }

 private:
  // Reads the finished GPU times (no waiting) into the ledger.
  void collect_gpu_times();
  bool workers_busy() const;

  std::unique_ptr<ResultPipeline> pipeline_;
  SliceLedger ledger_;
  std::array<SlotLane, 2> lanes_;  // after the ledger and the pipeline, which they use
  CpuSlotRunner cpu_runner_;
};

}  // namespace gausslab
