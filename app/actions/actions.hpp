#pragma once
// The one action table (after tev's): every command the viewer offers, with its shortcut(s), menu,
// label and one line of help. The menu bar, the key handling, the tooltips, the help overlay (?
// and F1), `--help`, `--keys` and `--script` all read this table, so they cannot disagree.
//
// Shortcuts are key events (GLFW key codes with modifiers, queued between frames so that a tap
// shorter than a frame is never lost), except the symbols whose key differs between keyboard
// layouts (= - + _ ? . [ ]), which are typed characters (also queued). Zoom is on + and - as in tev
// and HDRView; sigma, which had them, is on the Up and Down arrows (Shift: the coarse step). Each mode offers the actions it
// has (ActionOffers): its menu, its help and its keys show those only (action_dispatcher.hpp).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gausslab {

enum class ActionId {
  // File
  Open, Reload, SaveA, SaveB, SaveDifference, SaveView, ChooseFolder, ExportCompareAll, Quit,
  // Slots
  MethodA, MethodB, BOriginal, BExact, AExact, BFile, AFile, SwapSlots,
  // Filter
  SigmaUpSmall, SigmaDownSmall, SigmaUpLarge, SigmaDownLarge, NextBorder, ToggleContinuous, StepFrame, CycleRepeat,
  // View
  NextView, ViewA, ViewB, ViewSplit, ViewDifference, Blink, SignedDifference, FalseColour, GainUp, GainDown,
  ZoomIn, ZoomOut, Fit, OneToOne, ToggleSampling, TogglePixelGrid, ExposureUp, ExposureDown, OffsetUp, OffsetDown, NextChannel, ToggleChannelMap, NextTransfer, NextRange, ResetDisplay, JumpToLargest, ToggleInspector, TogglePanels, ToggleOverlay,
  // Tools
  CompareAll, ToggleVsync, TogglePooling, Help, CloseWindow,
};
inline constexpr ActionId kLastActionId = ActionId::CloseWindow;

struct Shortcut {
  enum class Kind { None, Key, Character } kind = Kind::None;
  int key = 0;             // Kind::Key: GLFW_KEY_*
  int mods = 0;            // Kind::Key: GLFW_MOD_* bits (Shift, Control, Alt)
  unsigned character = 0;  // Kind::Character
  friend bool operator==(const Shortcut& x, const Shortcut& y) {
    return x.kind == y.kind && x.key == y.key && x.mods == y.mods && x.character == y.character;
  }
};

struct Action {
  ActionId id;
  int argument;       // MethodA/MethodB: the method's position in the list (0 = first), else -1
  const char* name;   // for --script: "save_a", "method_a" (with the argument: "method_a 3")
  const char* menu;   // "File", "Slots", "Filter", "View", "Tools"
  std::string label;  // for the menu and the help
  const char* help;   // one line: what it does
  Shortcut shortcuts[2];
};

const std::vector<Action>& action_table();

// What a mode makes of an action of the table: whether it offers it, and how its menu entry and
// help line read there (the table's label and help unless the mode words them otherwise).
struct ActionOffer {
  bool offered = false;
  std::string label;     // empty: the table's
  std::string help;      // empty: the table's
  bool checked = false;  // a toggle that is on: ticked in the menu
  std::string unavailable;  // non-empty: greyed in the menu with this reason (a GPU method without a device)
};
using ActionOffers = std::function<ActionOffer(const Action&)>;

// "Ctrl+Shift+S", "Shift+3", "F1", "=", "Space".
std::string shortcut_text(const Shortcut& shortcut);
// Every shortcut of an action: "? or F1"; empty when it has none.
std::string shortcut_list(const Action& action);

// The entry a key event or a typed character triggers (mods: GLFW_MOD_* bits; Caps and Num Lock
// are ignored).
const Action* action_for_key(int key, int mods);
const Action* action_for_character(unsigned character);
// The entry for a script name and argument ("method_b", 2).
const Action* find_action(std::string_view name, int argument = -1);
const Action& first_action(ActionId id);

// The help: one line per action (the nine method keys folded into one), grouped by menu; with
// `offers`, only the actions a mode offers, as it words them (null: every action, as the table does).
struct HelpLine {
  std::string keys, what;
};
std::vector<std::pair<std::string, std::vector<HelpLine>>> help_sections(const ActionOffers& offers = nullptr);
std::string help_text();  // the same as plain text, for --help

// What a character of --keys stands for: a typed character's action, else the key of that name
// (digits, letters, space; an upper-case letter means Shift). Null when nothing.
const Action* key_for_typed_character(unsigned character);

}  // namespace gausslab
