#pragma once
// The viewer's command line: `gausslab [IMAGE] [options]`. Parsing checks syntax and ranges only;
// startup.hpp checks what needs the registry, the files and the machine, still before any frame.
#include <string>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

struct ViewerOptions {
  std::string image_path;    // empty: the built-in default picture
  std::string method_id;     // empty: auto (or the first method that can run: startup.cpp)
  std::string compare_id;    // method B of the comparison views, "original", "exact", or empty (none)
  std::string compare_file;  // --compare-file PATH: B shows this image file (the reference slot)
  bool watch = false;        // --watch: reload the picture's file when it changes
  bool display_given = false;
  CompareMode display = CompareMode::A;
  DisplayTransform display_transform;  // --exposure, --offset, --channel, --colour-map, --transfer, --range
  FilterParams params;
  bool resize = false;       // --size given
  int size_width = 0, size_height = 0;
  int window_width = 1280, window_height = 800;
  bool offscreen = false;
  int frames = 0;            // 0: interactive
  std::string screenshot;    // the full-resolution result A, after the run
  std::string screenshot_view;  // the rendered view with its overlay, after the run
  // The format of a screenshot written to standard output ('-'; standard_output.hpp).
  ImageFormat screenshot_format = ImageFormat::Png;
  bool screenshot_format_given = false;
  bool to_standard_output() const { return screenshot == "-" || screenshot_view == "-"; }
  bool overwrite = false;
  OutputPath best_path = OutputPath::Interop;
  std::string keys;          // typed into the first frame (scripted runs and tests)
  std::string script;        // --script FILE: timed actions, then frame-time percentiles
  std::string save_folder;   // --save-folder DIR: where saves go (else the remembered folder, or the working one)
  int soak = 0;              // --soak N: N frames cycling every setting; memory in use reported
  bool events = false;       // --events: a stdout line per frame, action and message (tests wait on them)
  bool help = false;

  // The sequence mode (--sequence INPUT: a folder of frames, a video or "synthetic"; --size sets the
  // synthetic sky's size, --method/--sigma an optional pre-filter; see sequence_mode.hpp).
  std::string sequence_input;
  int sequence_history = 20;
  int sequence_degree = 2;
  double sequence_gamma = 0.01;
  bool sequence() const { return !sequence_input.empty(); }
};

// Throws UsageError naming the flag, the value and what is allowed.
ViewerOptions parse_viewer_args(int argc, const char* const* argv);

// Frames kept for rolling medians: a whole timed run (and a minute of interactive frames).
int history_frames(const ViewerOptions& options);

// The --help text.
std::string viewer_usage();


}  // namespace gausslab
