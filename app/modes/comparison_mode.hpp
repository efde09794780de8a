#pragma once
// The comparison mode: one picture, two slots A and B (each a method, the original picture or the
// exact Gaussian), the comparison views, the numbers of A against B over the whole image, the
// inspector, live timings, compare-all, saving. Every command comes from the action table.
//   update: actions (keys, menu, script) → panels → apply what changed → run what needs running
//           (GPU methods through the ResultPipeline in the frame; CPU methods, the exact Gaussian,
//           the numbers and compare-all on worker threads) → collect finished work
//   draw:   the picture (ImageRenderer) in the area beside the side panel
// Files: comparison_mode.cpp (settings and processing), comparison_actions.cpp (what each action
// does), comparison_ui.cpp (menu, panels, overlay, help, inspector, legend), comparison_report.cpp
// (saving with sidecars, the automated run's summary).
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actions/action_dispatcher.hpp"
#include "comparison/compare_all.hpp"
#include "comparison/comparison_numbers.hpp"
#include "comparison/cpu_slot_runner.hpp"
#include "gausslab/render/slicing.hpp"
#include "comparison/exact_reference.hpp"
#include "panels/path_badge.hpp"
#include "comparison/save_queue.hpp"
#include "comparison/slice_schedule.hpp"
#include "comparison/slots.hpp"
#include "comparison/timing_history.hpp"
#include "panels/view_input.hpp"
#include "viewer/viewer_mode.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class ImageRenderer;
class ResultPipeline;
class SlicedRun;
class SlotPreparer;
struct ImageDrawParams;

// A method in the lists: what it is and whether it can run the current picture and parameters.
struct MethodChoice {
  std::string id, label, summary, accuracy;
  bool gpu = false;
  std::string blocked;  // empty: can run; else why not (greyed, shown as tooltip)
};

// The timing overlay's readouts, refreshed a few times a second.
struct OverlayTimings {
  std::vector<StageTiming> a, b, gl;  // medians per stage (CUDA events, host clock, GL queries)
  double frame_ms = 0;                // median wall-clock frame time
  double method_ms = 0;               // median of method A's own stages
};

// A message tied to its cause: it goes when the cause is gone, or after `until`.
struct TimedMessage {
  std::string text;
  bool error = false;
  std::chrono::steady_clock::time_point until;
};

class ComparisonMode final : public ViewerMode {
 public:
  ComparisonMode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface);
  ~ComparisonMode() override;

  void update(FrameContext& frame) override;
  void draw(FrameContext& frame) override;
  void open_file(const std::string& path) override;
  std::string window_title() const override;
  bool failed() const override { return run_failed_; }
  bool busy() const override;
  bool starting() const override;
  std::string progress() const override;
  void settle() override;
  void resume() override { settling_ = false; }
  std::string run_command(const std::string& command, const std::string& argument) override;
  int finish_automated(FrameContext& frame, const std::function<ImageRgba8()>& capture_view) override;
  void view_captured(ImageRgba8 view) override;
  std::vector<std::pair<std::string, std::string>> soak_cycle() const override;
  void shut_down() override;

 private:
  // --- comparison_actions.cpp: commands ---
  // What the comparison makes of each action of the table (the menu, the help and the keys follow it).
  ActionOffer offer(const Action& action) const;
  void perform(const Action& action, FrameContext& frame);
  void select_slot(int slot, int choice);
  std::string set_slot_by_name(int slot, const std::string& name);
  void set_pooling(PoolMode mode);

  // --- comparison_mode.cpp: settings, processing, results ---
  void apply_changes(FrameContext& frame);
  void want_slots();
  bool rebuild_picture();
  // Each slot's sliced run allocates its whole-picture result at the picture's load, not in a frame.
  void reserve_sliced_results();
  void update_method_choices();
  FilterProblem problem() const;
  // The problem with the parameters asked for (filter_), applied at the next frame's start.
  FilterProblem requested_problem() const;
  // Why the method `choice` cannot run at the requested parameters ("" when it can).
  std::string requested_refusal(int choice);
  Slot& slot(int index) { return index == 0 ? slot_a_ : slot_b_; }
  const Slot& slot(int index) const { return index == 0 ? slot_a_ : slot_b_; }
  bool slot_shown(int index) const;
  void process(FrameContext& frame);
  void take_cpu_results(FrameContext& frame);
  void show_exact_results(FrameContext& frame);
  // A host image into slot `index` for its wanted setting, a band per frame (ResultPipeline::
  // show_host_result); the slot counts as computed once the last band is in.
  void show_host_image(int index, std::shared_ptr<const ImageRgba8> image, FrameContext& frame);
  void continue_host_uploads(FrameContext& frame);
  void request_background_work();
  void record_timing_history(FrameContext& frame);
  // A slot's method failed or could not be prepared (out of memory, a failed launch, a lost
  // context): the slot goes on with one that can run (A: a CPU method, B: the original) and says so.
  void recover(int index, const std::string& why);
  // The device is unusable: everything continues on the cpu path.
  void leave_the_gpu(const std::string& why);
  bool check_picture_size(int width, int height);
  ExactKey exact_key() const { return ExactKey{picture_number_, applied_.params}; }
  std::optional<ComparisonNumbers> current_numbers() const;
  bool too_large_to_measure() const;
  std::string too_large_note() const;
  void say(const std::string& text, bool error = false, double seconds = 8.0);
  ImageDrawParams draw_params() const;
  std::string slot_label(int choice) const;
  std::string slot_id(int choice) const;

  // --- comparison_slicing.cpp: slow GPU methods in tiles over several frames ---
  // Runs this frame's tiles of slot `index`'s sliced run, about budget_ms of GPU time (starting one
  // when the method is predicted to take longer than the frame's budget); false when the slot runs
  // whole in the frame instead.
  // whole_ms: the GPU time this frame's whole runs are predicted to take (whole_run_ms): a tile that
  // would take the frame past kFrameGpuLimitMs with them waits for the next frame (never two in a row).
  bool run_sliced(int index, FrameContext& frame, double budget_ms, double whole_ms);
  // The predicted GPU time of slot `index`'s whole run, a GPU method's (one never timed at this
  // radius counts as the frame's whole slicing budget).
  double whole_run_ms(int index) const;
  // A whole run's work in the cost model's units: the picture's pixels × window_cost.
  double whole_run_units(const std::string& method_id, int radius) const;
  // Slot `index` is slicing: a run in progress, or its setting's last run was sliced (continuous
  // processing starts it again).
  bool slices(int index) const;
  // Each slicing slot's share of the frame's budget.
  static double slice_budget_ms(int slicing_slots);
  // A tag for the GPU time of slot `index`'s whole run (the cost model learns from it).
  std::uint64_t tag_whole_run(int index);
  // Reads the finished GPU times (no waiting): the cost model learns, finished sliced runs go into
  // their slot's StageTimer.
  void collect_gpu_times();
  void drop_sliced_run(int index);
  std::string sliced_progress(int index) const;
  // A sliced start (see sliced_starter_) waits or runs on a worker.
  bool sliced_start_running() const;
  // Blocks until no sliced start waits or runs (before the runs or the GPU go).
  void wait_sliced_starts();
  // Hands this frame's sliced starts to their workers (at the end of process: after the frame's CUDA calls).
  void submit_sliced_starts();
  struct SlicedStart;
  // The start the worker finished for `setting` (nullopt when none is in: none was asked, it was for
  // an older setting, or the method refused the tile, which slice_refused_ then records); a GPU
  // failure is thrown.
  std::optional<SlicedStart> take_sliced_start(int index, const SlotSetting& setting);
  // A continuous run may start again with its last plan (see comparison_slicing.cpp).
  bool keeps_plan(int index, const SlotSetting& setting, const RunChoice& choice) const;
  // Plans a run for `choice` and queues its start for the slot's worker (submit_sliced_starts).
  void queue_sliced_start(int index, const SlotSetting& setting, const RunChoice& choice);
  // The frames' side of a started run: its schedule and its GPU-time total.
  void begin_sliced_run(int index, const SlicedStart& started, const std::string& method_id);

  // --- comparison_ui.cpp: what is drawn with ImGui ---
  void layout(FrameContext& frame);
  bool section(const char* name, bool open_by_default);
  void side_panel(FrameContext& frame);
  void picture_section();
  void slots_section();
  void filter_section();
  void view_section();
  void numbers_section();
  void timing_section(FrameContext& frame);
  void machine_section();
  void overlay(FrameContext& frame);
  void compare_all_window(FrameContext& frame);
  void folder_window();
  void inspector();
  void picture_labels();
  void difference_legend();
  bool slot_combo(const char* label, int& choice, bool allow_exact);

  // --- comparison_report.cpp: saving and the automated run's report ---
  void save_slot_result(int slot);
  void save_difference();
  // Queues the image and its sidecar for the save worker (the sidecar text is made now, from the
  // setting shown); the message comes when the file is written.
  void save_with_sidecar(ImageRgba8 image, const std::string& what, const std::string& name);
  std::string sidecar_json(const std::string& what, int width, int height) const;
  std::string export_compare_all();
  RunSummary automated_summary(const FrameContext& frame);

  ViewerOptions options_;
  GlSurface& surface_;
  std::unique_ptr<ResultPipeline> pipeline_;
  std::unique_ptr<ImageRenderer> renderer_;
  Slot slot_a_, slot_b_;
  ExactReference exact_;
  CpuSlotRunner cpu_runner_;
  std::unique_ptr<NumbersWorker> numbers_;
  std::unique_ptr<CompareAll> compare_all_;
  SaveQueue saves_;  // PNG encoding and writing, off the UI thread

  // State the panels and actions edit, and what was last applied.
  FilterState filter_, applied_;
  ViewState view_;
  std::vector<MethodChoice> choices_;
  FilterProblem choices_problem_;  // the problem choices_ were made for
  MouseDrag drag_ = MouseDrag::None;
  PictureArea area_;
  float menu_height_ = 0;

  // The picture: as loaded, and as processed (resampled), shared with the workers. Every picture
  // processed gets a new number (SlotSetting::picture).
  ImageRgba8 original_;
  std::string image_name_, image_path_;
  std::shared_ptr<const ImageRgba8> picture_;
  std::uint64_t picture_number_ = 0;

  // Background work requested, and when the setting last changed (the exact Gaussian starts once
  // a setting has stood for a moment, so a slider drag does not start it at every step).
  std::optional<NumbersKey> numbers_requested_;
  std::chrono::steady_clock::time_point setting_changed_at_{};
  bool exact_wanted_now_ = false;

  // Messages and panels.
  std::string load_error_;
  TimedMessage status_;
  std::string cuda_description_;
  OutputPath path_seen_ = OutputPath::Cpu;
  std::string open_path_;
  bool focus_open_field_ = false;
  bool compare_all_open_ = false;
  bool folder_open_ = false;
  std::string save_folder_, folder_browse_;
  int custom_width_ = 1920, custom_height_ = 1080;

  // Input.
  ActionDispatcher actions_;  // the menu's, the panels' and the script's actions, the keys
  bool pending_save_view_ = false;
  bool pending_save_[2] = {false, false};  // a save asked for while the slot's result was on its way
  std::optional<Vec2> mouse_override_;  // --script 'mouse X Y' (offscreen runs have no mouse)
  std::map<std::string, bool> section_requests_;  // --script 'expand/collapse NAME': panel sections

  // Slicing: the cost model, each slot's sliced run (its frames' view and its device side), and the
  // GPU spans in flight (tag -> what they measure).
  struct TimedSpan {
    int slot = 0;
    std::string method;
    double units = 0;
    std::uint64_t run = 0;  // the sliced run it belongs to; 0: a whole run
    int radius = 0;
    int launches = 1;  // steps in the span (one for a whole run)
  };
  struct SlicedTotal {
    int slot = 0;
    SlotSetting setting;
    double ms = 0;
    int steps = 0, read = 0, tiles = 0;
    bool row_bands = true, finished = false, untimed = false;
  };
  CostModel cost_model_;
  SliceSchedule schedule_[2];
  std::unique_ptr<SlicedRun> sliced_[2];
  bool tiles_deferred_[2] = {false, false};  // the slot's tiles waited last frame for a whole run
  // The work of one step (units per launch) of the slot's latest span read back: a plan whose steps
  // were never timed enqueues one step per frame (below one wave of blocks a step's time does not
  // shrink with its pixels, so the model's extrapolation from the probe's larger tiles can be 5x
  // short: 13 steps predicted 1.9 ms took 11 ms on the H100).
  double timed_step_units_[2] = {0, 0};
  // Starting a sliced run (its band instance prepared for the tile with its halo, its device images
  // sized) can take tens of milliseconds (cuFFT plans, allocations, a new border's weights): it runs
  // on a worker per slot, as the slots' prepares do, and until its outcome is in the slot keeps its
  // last result and the frame leaves the run alone. Declared after sliced_: its job uses the run.
  struct SlicedStart {
    SlotSetting setting;
    TilePlan plan;
    bool probe = false;
  };
  std::optional<SlicedStart> sliced_starting_[2];
  std::optional<SlicedStart> sliced_last_start_[2];  // what the run was last started with
  std::unique_ptr<SlotPreparer> sliced_starter_[2];
  std::function<AccuracyBound()> sliced_start_job_[2];  // made in the frame, submitted at its end
  std::uint64_t next_tag_ = 1;
  std::map<std::uint64_t, TimedSpan> spans_;
  std::map<std::uint64_t, SlicedTotal> sliced_totals_;
  std::optional<SlotSetting> uploading_[2];  // the setting of a host image on its way to the slot
  std::optional<SlotSetting> slice_refused_[2];  // a setting whose tile the method refused: whole
  std::string sliced_note_[2];  // "sliced into 17 bands": the slot's last finished sliced run,
  SlotSetting sliced_note_setting_[2];  // shown while the slot still wants its setting

  // Timing.
  OverlayTimings overlay_timings_;
  TimingHistory history_;
  int seen_completed_[3] = {0, 0, 0};  // A, B, GL timers' completed frames already in the history
  std::chrono::steady_clock::time_point last_overlay_refresh_{};
  bool settling_ = false;
  bool run_failed_ = false;
  std::string run_failure_;
  std::string fallback_note_;  // what failed and what the viewer did instead (automated: exit 3)
};

}  // namespace gausslab
