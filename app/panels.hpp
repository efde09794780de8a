#pragma once
// The ImGui panels: functions that take the state by reference, draw, and report what the user
// asked for. No GL, no CUDA: the viewer does the work.
#include <optional>
#include <string>
#include <vector>

#include "gausslab/core/pixel_format.hpp"
#include "gausslab/cuda/stage_timer.hpp"
#include "gausslab/render/gl_surface.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "accuracy_probe.hpp"
#include "path_badge.hpp"
#include "viewer_state.hpp"

namespace gausslab {

struct MethodChoice {
  std::string id, label, summary, accuracy;
  std::string blocked;  // empty: can run the current problem; else why not (greyed, shown as tooltip)
};

// What the panels show but do not edit.
struct PanelInfo {
  const std::vector<MethodChoice>* methods = nullptr;
  std::string image_name;
  int original_width = 0, original_height = 0;
  int width = 0, height = 0;  // the picture as processed
  OutputPath path = OutputPath::Cpu;
  std::string path_reason;
  const GlInfo* gl = nullptr;
  std::string cuda_device;      // describe(cuda_device_status())
  std::string load_error;       // the last file that could not be opened
  std::string status;           // the last action's outcome ("saved ...")
  std::string method_a_problem; // why A is not up to date (cannot run, failed)
  std::string method_b_problem;
  std::string accuracy_text;    // "max error 0.50 levels, PSNR 58.3 dB ..." or "measuring…"
  bool accuracy_ok = true;
  bool automated = false;
};

// Text fields of the control panel that persist between frames.
struct PanelScratch {
  std::string open_path;
  int custom_width = 1920, custom_height = 1080;
};

struct PanelRequests {
  std::optional<std::string> open_path;
  bool save_result = false;
  bool fit = false;
  bool one_to_one = false;
};

// The control panel (method combos, sigma, truncate, border, size, view, screenshot, open).
PanelRequests control_panel(FilterState& filter, ViewState& view, PanelScratch& scratch, const PanelInfo& info);

struct OverlayTimings {
  std::vector<StageTiming> a;   // method A's stages with map/unmap/... (CUDA events or host clock)
  std::vector<StageTiming> b;   // method B's, when computed
  std::vector<StageTiming> gl;  // upload, draw, ui (GL timer queries)
  double frame_ms = 0;          // median wall-clock frame time
  double method_ms = 0;         // median of method A's own stages
};

// The timing overlay drawn over the picture (top-left): path badge, GL and CUDA names, stages with
// rolling medians, frame time, Mpixel/s, the measured error.
void timing_overlay(const PanelInfo& info, const FilterState& filter, const ViewState& view,
                    const OverlayTimings& timings);

}  // namespace gausslab
