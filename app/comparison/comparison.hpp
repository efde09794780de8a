#pragma once
// The comparison without its window: one picture, two slots A and B (each a registered method, the
// original picture or the exact Gaussian), what each shows computed and measured, failures
// recovered. No Dear ImGui: the comparison mode (app/modes/comparison_mode.hpp) and its panels
// (app/panels/) edit settings().requested() and read the rest; tests drive it on an offscreen
// OpenGL context (tests/ui/test_comparison_core.cpp). Its parts:
//   settings  what the slots should show (comparison_settings.hpp)
//   runs      the slots at work: GPU methods through the ResultPipeline in the frame, whole or in
//             slices; CPU methods on a worker (slot_runs.hpp)
//   work      the exact Gaussian, the numbers and compare-all on workers (background_work.hpp)
//   picture   as loaded and as processed; timing (comparison_timing.hpp); messages
// A frame (frame()): the setting asked for is applied (a new size resamples the picture, a new
// method prepares) → what needs running runs → finished work goes into the slots' textures → the
// exact Gaussian and the numbers are asked for.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "comparison/background_work.hpp"
#include "comparison/comparison_settings.hpp"
#include "comparison/comparison_timing.hpp"
#include "comparison/file_watcher.hpp"
#include "comparison/reference_file.hpp"
#include "comparison/slot_runs.hpp"
#include "comparison/status_messages.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "viewer/picture_levels.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class GlTimer;
class RollingMedian;

struct ComparisonStart {
  ImageRgba8 original;     // the picture as loaded (its 8-bit reduction, when the file holds more)
  std::shared_ptr<const PictureLevels> levels;  // the file's own samples when it holds more than 8 bits
  std::string name;        // its path, or the built-in picture's name
  std::string path;        // the file, for a reload; empty for the built-in picture
  FilterState filter;      // the first setting
  OutputPath best_path = OutputPath::Interop;
  int history_frames = 300;   // frames kept for the stage medians
  bool automated = false;     // timed and scripted runs: the exact Gaussian from the start
  bool print_events = false;  // --events: a stdout line per message
  GlInfo gl;                  // the OpenGL the pipeline runs on (named in refusals and sidecars)
  std::string compare_file;   // --compare-file: B shows this image file (a StartupError when it cannot)
  bool watch = false;         // --watch: the picture's file is reloaded when it changes
};

// The picture: as loaded, and as processed (resampled), shared with the workers. Every picture
// processed gets a new number (SlotSetting::picture), so a result of an older one never counts.
struct ComparisonPicture {
  ImageRgba8 original;
  std::shared_ptr<const PictureLevels> levels;  // the file's own samples when it holds more than 8 bits
  std::string name, path;
  std::shared_ptr<const ImageRgba8> processed;
  // What the numbers and the exact Gaussian measure when not the 8-bit picture: the levels at the
  // file's own size (a resampled picture is measured in 8 bits, as the panel says).
  std::shared_ptr<const PictureLevels> processed_levels;
  std::uint64_t number = 0;
  std::uint64_t opened = 0;  // files opened (the view fits a new one)
  std::string load_error;  // why the last open or new size was not used (the old picture stays)
};

// What a frame lends the comparison: the GL stage timer and the frame times (both start again when
// a setting changes).
struct FrameClocks {
  GlTimer& gl;
  RollingMedian& frame_ms;
};

// The machine, as the panels and the sidecars describe it.
struct MachineFacts {
  GlInfo gl;
  std::string cuda;  // the CUDA device, or why there is none
};

class Comparison {
 public:
  // Needs the OpenGL context current (the pipeline's textures); throws StartupError when the first
  // picture cannot be used.
  explicit Comparison(ComparisonStart start);
  ~Comparison();
  Comparison(const Comparison&) = delete;
  Comparison& operator=(const Comparison&) = delete;

  ComparisonSettings& settings() { return settings_; }
  const ComparisonSettings& settings() const { return settings_; }
  // Which slots a view shows: a slot not shown is not prepared or run (B's buffers may be large).
  void show_slots(bool a, bool b);
  // Opens an image file in place of the picture (the old one stays when it cannot be used).
  void open_file(const std::string& path);
  const ComparisonPicture& picture() const { return picture_; }
  // Slot `slot` (0: A, 1: B) shows the image file `path` from the next frame (the reference slot,
  // reference_file.hpp), watched and reloaded when it changes. Returns why not ("" when it does):
  // a file the readers refuse, or of another size than the picture (both sizes named); the slot
  // then keeps what it had, and the user is told.
  std::string set_slot_file(int slot, const std::string& path);
  const ReferenceSlot& reference(int slot) const { return files_.reference[slot]; }
  // Polls the watched files (the reference slots' and, with --watch, the picture's; cheap: a stat every FileWatcher::kPollSeconds at most) and reloads a
  // file whose new version has stood still; true when something was reloaded or refused (a frame
  // should show it).
  bool poll_files();
  void dismiss_load_error() { picture_.load_error.clear(); }

  // One frame's work (see the top): apply, run, collect, ask.
  void frame(const FrameClocks& clocks);
  // The frame is drawn: the workers' paced steps go on.
  void frame_drawn();
  // No new work starts (an automated run's end, a script's wait), or it starts again.
  void settle(bool on) { settling_ = on; }
  void start_compare_all();

  SlotRuns& runs() { return runs_; }
  const SlotRuns& runs() const { return runs_; }
  const BackgroundWork& work() const { return work_; }
  const ComparisonTiming& timing() const { return timing_; }
  ComparisonTiming& timing() { return timing_; }
  StatusMessages& messages() { return messages_; }
  const StatusMessages& messages() const { return messages_; }
  const MachineFacts& machine() const { return machine_; }

 private:
  void apply(const FrameClocks& clocks);
  // The slots want the applied setting for the current picture.
  void want_slots();
  // Resamples the picture to the size asked for and hands it to the pipeline; false (with
  // picture_.load_error) when it cannot be used.
  bool rebuild_picture();
  // The exact Gaussian once computed, and the original picture when pooled, into their slots.
  void show_host_results(GlTimer& gl);
  // A slot's run failed (slot < 0: a GPU failure outside any slot's run): a fault that left the
  // CUDA context broken moves everything to the cpu path; the slot goes on with a method that runs.
  void run_failed(int slot, const std::exception& error);
  // The device is unusable: everything continues on the cpu path.
  void leave_the_gpu(const std::string& why);

  MachineFacts machine_;
  StatusMessages messages_;
  SlotRuns runs_;
  BackgroundWork work_;
  ComparisonSettings settings_;  // after runs_: it reads the pipeline and asks slot A's instances
  ComparisonPicture picture_;
  WatchedFiles files_;
  ComparisonTiming timing_;
  bool settling_ = false;
};

// What the comparison's state says, for the mode, the panels and the reports.
ExactKey exact_key(const Comparison& comparison);
// The numbers of the slots' current settings (A against B, each against the exact Gaussian).
std::optional<ComparisonNumbers> current_numbers(const Comparison& comparison);
// Pictures beyond kMaxMeasuredPixels get no numbers and no exact Gaussian; the note says so.
bool too_large_to_measure(const Comparison& comparison);
std::string too_large_note(const Comparison& comparison);
// A shown method's first result for its setting is not in yet.
bool starting(const Comparison& comparison);
// Work still on its way (results, the exact Gaussian, the numbers, compare-all).
bool busy(const Comparison& comparison);
// "cpu_separable running (2 s); B preparing fft; exact Gaussian 40 %" (empty when idle).
std::string progress(const Comparison& comparison);

}  // namespace gausslab
