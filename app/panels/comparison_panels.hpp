#pragma once
// The comparison's panels, drawn with Dear ImGui: free functions over the state they edit (the
// setting asked for, the view, their own small states below), reading the comparison core
// (app/comparison/comparison.hpp). A button that is an action queues it, so that the menu, the keys,
// the script and the panels do one thing one way; its tooltip names the action's keys.
//   the side panel  docked at the right below the menu bar, resizable by its left edge, its
//                   sections collapsible: picture, slots, filter, view, numbers, timing, machine, keys
//   the overlay     the path, the setting, the stage medians, the numbers' headline: docked at the
//                   side panel's bottom (or floating where the user drags it)
//   the status bar  the latest message, the work in progress, the zoom (status_bar.hpp)
//   windows         compare all, the folder chooser (the help is every mode's: mode_shell.hpp)
//   over the picture the split's labels, the difference legend, the inspector (picture_overlays.cpp)
#include <array>
#include <map>
#include <optional>
#include <string>

#include "actions/action_dispatcher.hpp"
#include "comparison/comparison.hpp"
#include "panels/docked_panel.hpp"
#include "panels/file_browser.hpp"
#include "panels/status_bar.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class CompareAll;
class GlfwWindow;
class TimingHistory;

// --script 'expand NAME' / 'collapse NAME': a section opened or closed at its next draw.
struct PanelSections {
  std::map<std::string, bool> requests;
};

struct PicturePanelState {
  std::string open_path;          // the Open field's text
  bool focus_open_field = false;  // Open (Ctrl+O): the file browser opens (side_panel.cpp), its field focused
  int custom_size[2] = {1920, 1080};  // width, height (ImGui::InputInt2 edits the pair)
};

// Values typed beyond a slider's range (Ctrl+click) are not clamped silently: the panel says why
// they are not applied until the next change.
struct FilterPanelState {
  std::string sigma_refusal, truncate_refusal;
  std::optional<double> sigma_typed, truncate_typed;  // a value being typed, applied on Enter or focus loss
  std::array<float, 4> sigma_field{};  // where the sigma field is (x0, y0, x1, y1), for --events drivers
  std::optional<PoolMode> pool_asked;  // picked in the pooling list (ComparisonSettings::set_pool checks it)
};

struct FolderChooser {
  bool open = false;
  std::string browsing;  // the folder listed
};

// Everything the comparison's panels keep between frames.
// The Slots menu's "A/B: image file..." (reference_file_window.cpp): a path typed for a slot.
struct ReferenceFileField {
  bool open = false;
  int slot = 1;
  std::string path;
  bool focus = false;
  std::string refusal;  // the last try's, shown until the next
};

struct ComparisonPanels {
  PanelSections sections;
  ReferenceFileField reference_file;
  PicturePanelState picture;
  FilterPanelState filter;
  FolderChooser folder;
  bool compare_all_open = false;
  bool timed_run = false;  // --frames: every frame processes (the overlay says so)
  float docked_overlay_height = 0.0f;  // the docked overlay's height last frame (docked_panel.hpp)
  std::string display_range;  // the A, B and split views' range as worked out (DisplayRangeWorker::note)
  FileBrowser browser;
};

// The reference slot's path field; on Enter or "use" it calls Comparison::set_slot_file (a refusal
// is said in the status and in the window, which stays open).
void reference_file_window(Comparison& comparison, ReferenceFileField& field);
// A file dropped on the window: into the slot under the cursor in the split view, else into B (the
// reference slot); with Shift held it opens as the picture instead.
void drop_file(Comparison& comparison, const ViewState& view, const PictureArea& area, const std::string& path);

void comparison_side_panel(Comparison& comparison, ViewState& view, ComparisonPanels& panels, ActionDispatcher& actions,
                           const std::string& save_folder, GlfwWindow* window);
bool section(PanelSections& sections, const char* name, bool open_by_default);
// At the top of the side panel on the cpu path: a banner in the path badge's colour that says so and
// why (no CUDA device, --path cpu, a GPU failure), so that no GPU is not missed.
void cpu_path_banner(const ResultPipeline& pipeline, ActionDispatcher& actions);

// The sections (each draws nothing when its header is closed: the side panel asks section() first).
void picture_panel(Comparison& comparison, PicturePanelState& state);
void slots_panel(Comparison& comparison);
// Returns true when the filter changed.
bool filter_panel(FilterState& filter, FilterPanelState& state);
void view_panel(ViewState& view, ActionDispatcher& actions, const std::string& range_note);
void numbers_panel(const Comparison& comparison, ActionDispatcher& actions);
void timing_panel(const TimingHistory& history, GlfwWindow* window, ActionDispatcher& actions);
void machine_panel(const Comparison& comparison, const std::string& save_folder, ActionDispatcher& actions);

// The timing overlay (T hides it): docked, comparison_overlay draws nothing (the side panel draws
// overlay_contents at its bottom, below its sections); floating, its own window. timed_run: --frames (every frame processes).
void comparison_overlay(const Comparison& comparison, ViewState& view, bool timed_run);
void overlay_contents(const Comparison& comparison, ViewState& view, bool timed_run);
// The status bar's content from the comparison and the view (the cursor's pixel from the mouse).
// The status bar's content; display_range: the views' range as worked out (after the transform's words).
StatusBarContent comparison_status(const Comparison& comparison, const ViewState& view, const PictureArea& area,
                                   const std::string& display_range);
void compare_all_window(const CompareAll& compare_all, bool& open, const ViewState& view, ActionDispatcher& actions);
// The folder chooser; returns the folder chosen ("use this folder").
std::optional<std::string> folder_window(FolderChooser& chooser);

// Over the picture: A and B's names (split: each side's), the difference's or the channel's colour
// map legend, the inspector.
void picture_labels(const Comparison& comparison, const ViewState& view, const PictureArea& area);
void difference_legend(const ViewState& view, const PictureArea& area);
// The A, B and split views' colour map for one channel, with the values at its ends.
// own_units: the picture holds more than 8 bits, and the ends are in its samples' units.
void display_map_legend(const ViewState& view, const DisplayRange& range, bool own_units, const PictureArea& area);
void inspector(const Comparison& comparison, const ViewState& view, const PictureArea& area);

}  // namespace gausslab
