#pragma once
// What every mode draws alike, from the action table: the menu bar (the actions the mode offers,
// with their keys, ticks and tooltips; a chosen entry is queued) and the help window (? or F1; Esc
// or its close button closes it).
#include "actions/action_dispatcher.hpp"

namespace gausslab {

void menu_bar(ActionDispatcher& actions);
// The help window, while it is open; its last line says what the mouse does (`mouse`).
void help_window(ActionDispatcher& actions, const char* mouse);

}  // namespace gausslab
