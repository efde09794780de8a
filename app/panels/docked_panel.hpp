#pragma once
// The layout both modes share (as in tev and HDRView): the menu bar at the top, the status bar at
// the bottom (status_bar.hpp), a side panel docked at the right between them, resizable by its left
// edge (view_input.cpp), the timing overlay docked at its bottom or floating in a window of its own
// (its dock/float button); the picture gets the rest, so that nothing of ours covers it by default.
// Tab hides the menu, the panel, the overlay and the status bar; T hides the overlay. Each mode
// draws what goes in the panel and in the overlay; these functions place them.
#include <functional>

#include "gausslab/render/result_pipeline.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

// The menu bar's height in ImGui units (0 while the panels are hidden).
float menu_height(const ViewState& view);

// The picture's area beside the side panel, below the menu bar and above the status bar
// (framebuffer pixels); keeps the panel's width within kNarrowestPanel units (x the content scale)
// and 70 % of the window, and rescales it when the content scale changes.
PictureArea docked_layout(ViewState& view, int surface_width, int surface_height);

// The side panel: `sections` scroll in a child above the docked overlay (`overlay`, unless the
// overlay is hidden or floating), so that the overlay growing or shrinking never moves their
// widgets; `overlay_height` carries the docked overlay's height from one frame to the next.
void docked_side_panel(const ViewState& view, float& overlay_height, const std::function<void()>& sections,
                       const std::function<void()>& overlay);

// The overlay in a window of its own while it floats (nothing while it is docked: the side panel
// draws it), starting at the picture's top-left corner, kept on the display.
void floating_overlay(const ViewState& view, const std::function<void()>& overlay);

// The overlay's first line: the path's badge (the UI tests find its colour in the view's
// screenshot), `text`, and the dock/float button.
void overlay_path_line(OutputPath path, const char* text, ViewState& view);

}  // namespace gausslab
