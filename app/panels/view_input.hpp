#pragma once
// The mouse over the picture: wheel zoom around the cursor, drag to pan, drag the split divider,
// drag the side panel's left edge to resize it. Works on ViewState only; Dear ImGui says where
// the mouse is and whether a panel has it.
#include "viewer/viewer_state.hpp"

namespace gausslab {

enum class MouseDrag { None, Pan, Divider, PanelEdge };

// The side panel's narrowest width at a content scale of 1, in ImGui units.
inline constexpr float kNarrowestPanel = 240.0f;

// The mouse in framebuffer pixels relative to the picture area's top-left corner.
Vec2 mouse_in_picture(const PictureArea& area);

// The side panel's left edge in ImGui units, or -1 while the panels are hidden.
float side_panel_edge(const ViewState& view);
// Puts the mouse at `position` (window pixels) for this frame: --script 'mouse X Y' (offscreen runs
// have no mouse).
void place_mouse(const Vec2& position);

// Applies this frame's wheel and drags to `view`; `drag` carries a drag across frames.
// panel_edge_x: the side panel's left edge in ImGui units, or < 0 when there is none.
void handle_view_mouse(ViewState& view, MouseDrag& drag, const PictureArea& area, float panel_edge_x);

}  // namespace gausslab
