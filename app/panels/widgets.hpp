#pragma once
// The small pieces every panel is made of: the colours of good news, errors and dim notes, a
// tooltip (one that names an action's keys, from the action table), wrapped coloured text, a window
// kept on the display, and figures as the panels print them.
#include <imgui.h>

#include <string>

#include "actions/actions.hpp"

namespace gausslab {

inline const ImVec4 kErrorColour(1.0f, 0.45f, 0.4f, 1.0f);
inline const ImVec4 kGoodColour(0.5f, 0.9f, 0.5f, 1.0f);
inline const ImVec4 kDimColour(0.65f, 0.65f, 0.65f, 1.0f);

// A tooltip for the last item, wrapped (also over a disabled item); nothing when `text` is empty.
void tooltip(const std::string& text);
// A tooltip with the action's help and its keys ("... [Ctrl+S]").
void action_tooltip(ActionId id);
void wrapped(const ImVec4& colour, const std::string& text);
// Keeps the current window inside the display (a window that shrinks must not lose it).
void keep_on_screen();
// A figure as the panels print it ("inf" for an infinite one).
std::string figure(double value, const char* format = "%.4g");

}  // namespace gausslab
