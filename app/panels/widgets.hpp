#pragma once
// The small pieces every panel is made of: the colours of good news, errors and dim notes, a
// tooltip (one that names an action's keys, from the action table), wrapped coloured text, a window
// kept on the display, and figures as the panels print them.
#include <imgui.h>

#include <optional>
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
// A slider of doubles whose typed value (Ctrl+click, then the digits) is taken on Enter or when the
// field loses the focus, never a keystroke at a time (typing 500 used to apply 5 and 50 on the way,
// radius 200 on the CPU); a drag applies as it moves. `typed` holds the text's value meanwhile.
// Returns the value to apply: the dragged one, or the typed one once committed (Esc: the old one).
std::optional<double> committed_slider(const char* label, double value, double min, double max, const char* format,
                                       ImGuiSliderFlags flags, std::optional<double>& typed);
// "Ctrl+click and type a value: Enter or a click elsewhere applies it, Esc drops it", for the
// tooltip of a committed_slider.
extern const char* const kTypedValueKeys;
// The text's scale against kBaseFontPixels (the window's content scale, imgui_session.hpp): fixed
// sizes of the panels (the side panel's width) are multiplied by it.
float ui_scale();
// A fixed size of the panels (an item's width, the room left for its label, a window's first size,
// a margin) given in ImGui units at a content scale of 1: at this one, so that the room grows with
// the text it holds (HiDPI: 180 at 2 for 90).
float scaled(float units);
// A figure as the panels print it ("inf" for an infinite one).
std::string figure(double value, const char* format = "%.4g");

}  // namespace gausslab
