#pragma once
// The mouse over the picture: wheel zoom around the cursor, drag to pan, drag the split divider.
// Works on ViewState only; Dear ImGui says where the mouse is and whether a panel has it.
#include "viewer_state.hpp"

namespace gausslab {

enum class MouseDrag { None, Pan, Divider };

// Applies this frame's wheel and drags to `view` (a view of view_width × view_height framebuffer
// pixels); `drag` carries a drag across frames.
void handle_view_mouse(ViewState& view, MouseDrag& drag, int view_width, int view_height);

}  // namespace gausslab
