#pragma once
// The status bar along the window's bottom edge (as in tev and HDRView): the latest message on the
// left (a confirmation with the saved file's path, a refusal in red; it stays until the next one,
// dimmed once its time is up, so that nothing there moves by itself), the work in progress, and on
// the right the zoom, the sampling drawing it, the display transform where it is not the default
// (exposure, offset, transfer, range with its values, channel) and the picture pixel under the cursor. Messages go
// here, never into the overlay, so the overlay does not grow over anything.
// With --events it prints what it shows ("gausslab-event: status saved /tmp/a.png (+ .json)",
// "gausslab-event: status_view zoom 400 % nearest  exposure -1.0"): the UI tests read the status bar through them.
#include <optional>
#include <string>

#include "actions/action_dispatcher.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

struct StatusBarContent {
  std::string message;      // the latest message ("" when none yet)
  bool error = false;       // a refusal or a failure: red
  bool current = false;     // within its time: bright; after it, dimmed
  std::string progress;     // work on its way ("" when none)
  double zoom = 1;          // screen pixels per picture pixel
  Sampling sampling = Sampling::Linear;  // as drawn (resolved)
  std::string display;      // the display transform where not the default ("exposure -1.0  srgb")
  std::optional<Vec2> pixel;  // the picture pixel under the cursor, if it is over the picture
};

// The view's part of the bar, as both modes fill it: the zoom, the sampling drawing it, the display
// transform (not in the difference view; display_range: its range as worked out) and the pixel of
// the image_width x image_height picture under the cursor, when the cursor is over the picture in
// `area` and not over a panel.
void view_status(StatusBarContent& content, const ViewState& view, const PictureArea& area, int image_width,
                 int image_height, const std::string& display_range);

// The bar's height in ImGui units (one line of text with the frame padding), 0 while `hidden`.
float status_bar_height(bool hidden);
// Draws the bar at the display's bottom edge, full width.
void status_bar(const StatusBarContent& content, ActionDispatcher& actions);

}  // namespace gausslab
