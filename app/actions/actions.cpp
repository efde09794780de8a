#include "actions/actions.hpp"

#define GLFW_INCLUDE_NONE  // key codes only
#include <GLFW/glfw3.h>

namespace gausslab {

namespace {

constexpr int kShift = GLFW_MOD_SHIFT, kCtrl = GLFW_MOD_CONTROL;

Shortcut key(int code, int mods = 0) { return Shortcut{Shortcut::Kind::Key, code, mods, 0}; }
Shortcut character(unsigned c) { return Shortcut{Shortcut::Kind::Character, 0, 0, c}; }

std::vector<Action> make_table() {
  std::vector<Action> t;
  const auto add = [&t](ActionId id, const char* name, const char* menu, std::string label, const char* help,
                        Shortcut first = {}, Shortcut second = {}) {
    t.push_back(Action{id, -1, name, menu, std::move(label), help, {first, second}});
  };
  add(ActionId::Open, "open", "File", "Open an image...", "type or pick a path in the panel (or drop a file)", key(GLFW_KEY_O, kCtrl));
  add(ActionId::Reload, "reload", "File", "Reload the image", "read the image file again (after an edit elsewhere)", key(GLFW_KEY_R, kCtrl));
  add(ActionId::SaveA, "save_a", "File", "Save result A", "the full-resolution result A as PNG, with a JSON sidecar", key(GLFW_KEY_S, kCtrl));
  add(ActionId::SaveB, "save_b", "File", "Save result B", "the full-resolution result B as PNG, with a JSON sidecar", key(GLFW_KEY_B, kCtrl));
  add(ActionId::SaveDifference, "save_difference", "File", "Save the difference", "the difference image as the view shows it (mode, gain, colours), full resolution", key(GLFW_KEY_D, kCtrl));
  add(ActionId::SaveView, "save_view", "File", "Save the view", "the window as it looks, panels and overlays included", key(GLFW_KEY_S, kCtrl | kShift));
  add(ActionId::ChooseFolder, "choose_folder", "File", "Choose the save folder...", "where saved files go (remembered between runs)", key(GLFW_KEY_O, kCtrl | kShift));
  add(ActionId::ExportCompareAll, "export_csv", "File", "Export the compare-all table", "the compare-all table as CSV in the save folder", key(GLFW_KEY_E, kCtrl));
  add(ActionId::Quit, "quit", "File", "Quit", "close the viewer", key(GLFW_KEY_Q, kCtrl));

  for (int i = 0; i < 9; ++i)
    t.push_back(Action{ActionId::MethodA, i, "method_a", "Slots", "A = method " + std::to_string(i + 1),
                       "slot A shows the method at this place in the list", {key(GLFW_KEY_1 + i), {}}});
  for (int i = 0; i < 9; ++i)
    t.push_back(Action{ActionId::MethodB, i, "method_b", "Slots", "B = method " + std::to_string(i + 1),
                       "slot B shows the method at this place in the list", {key(GLFW_KEY_1 + i, kShift), {}}});
  add(ActionId::BOriginal, "b_original", "Slots", "B = original picture", "slot B shows the picture before blurring", key(GLFW_KEY_O));
  add(ActionId::BExact, "b_exact", "Slots", "B = exact Gaussian", "slot B shows the float64 reference (computed in the background)", key(GLFW_KEY_E));
  add(ActionId::AExact, "a_exact", "Slots", "A = exact Gaussian", "slot A shows the float64 reference", key(GLFW_KEY_E, kShift));
  add(ActionId::BFile, "b_file", "Slots", "B: image file...", "slot B shows an image file of the picture's size (the reference slot), reloaded when it changes; or drop a file on the window", key(GLFW_KEY_B, kCtrl | kShift));
  add(ActionId::AFile, "a_file", "Slots", "A: image file...", "slot A shows an image file of the picture's size; or drop a file on A's half of the split view", key(GLFW_KEY_A, kCtrl | kShift));
  add(ActionId::SwapSlots, "swap", "Slots", "Swap A and B", "exchange what the two slots hold", key(GLFW_KEY_X));

  add(ActionId::SigmaUpSmall, "sigma_up", "Filter", "Sigma + 0.1", "larger blur, fine step", key(GLFW_KEY_UP));
  add(ActionId::SigmaDownSmall, "sigma_down", "Filter", "Sigma - 0.1", "smaller blur, fine step", key(GLFW_KEY_DOWN));
  add(ActionId::SigmaUpLarge, "sigma_up_large", "Filter", "Sigma + 1", "larger blur, coarse step", key(GLFW_KEY_UP, kShift));
  add(ActionId::SigmaDownLarge, "sigma_down_large", "Filter", "Sigma - 1", "smaller blur, coarse step", key(GLFW_KEY_DOWN, kShift));
  add(ActionId::NextBorder, "next_border", "Filter", "Next border mode", "reflect, mirror, nearest, constant, wrap", key(GLFW_KEY_R));
  add(ActionId::ToggleContinuous, "continuous", "Filter", "Continuous processing", "run the methods every frame (live timings) or only on a change", key(GLFW_KEY_SPACE));
  add(ActionId::StepFrame, "step", "Filter", "Next frame", "the sequence mode: one frame on (while paused)", character('.'));
  add(ActionId::CycleRepeat, "repeat", "Filter", "Repeat per frame", "run each method 1, 4, 16 or 64 times a frame: steadier timings", key(GLFW_KEY_R, kShift));

  add(ActionId::NextView, "next_view", "View", "Next view", "A, B, split, difference", key(GLFW_KEY_M));
  add(ActionId::ViewA, "view_a", "View", "View A", "result A alone", key(GLFW_KEY_A));
  add(ActionId::ViewB, "view_b", "View", "View B", "result B alone", key(GLFW_KEY_B, kShift));
  add(ActionId::ViewSplit, "view_split", "View", "Split A|B", "A left of the divider, B right (drag the divider)", key(GLFW_KEY_S));
  add(ActionId::ViewDifference, "view_difference", "View", "Difference", "A - B amplified by the gain", key(GLFW_KEY_D));
  add(ActionId::Blink, "blink", "View", "Blink A/B", "tap: swap A and B in place; hold: show the other while held", key(GLFW_KEY_B));
  add(ActionId::SignedDifference, "signed", "View", "Signed difference", "difference as |A-B| or signed A-B", key(GLFW_KEY_D, kShift));
  add(ActionId::FalseColour, "false_colour", "View", "False colour", "the difference through a colour map with its legend", key(GLFW_KEY_C));
  add(ActionId::GainUp, "gain_up", "View", "Gain x2", "amplify the difference more", key(GLFW_KEY_G));
  add(ActionId::GainDown, "gain_down", "View", "Gain / 2", "amplify the difference less", key(GLFW_KEY_G, kShift));
  add(ActionId::ZoomIn, "zoom_in", "View", "Zoom in", "the next step of x1.41 (x2 every two), around the picture's centre", character('+'), character('='));
  add(ActionId::ZoomOut, "zoom_out", "View", "Zoom out", "the step before, around the picture's centre", character('-'), character('_'));
  add(ActionId::Fit, "fit", "View", "Fit", "the whole picture in the view", key(GLFW_KEY_F));
  add(ActionId::OneToOne, "one_to_one", "View", "1:1", "one picture pixel per screen pixel", key(GLFW_KEY_0));
  add(ActionId::ToggleSampling, "sampling", "View", "Sampling: auto, nearest, linear", "auto: nearest from 100 % zoom up (each pixel a sharp square), linear below", key(GLFW_KEY_N));
  add(ActionId::TogglePixelGrid, "grid", "View", "Pixel grid", "zoomed far in, a line between the pixels and their values in the cells", key(GLFW_KEY_N, kShift));
  add(ActionId::ExposureUp, "exposure_up", "View", "Exposure + 1/2 stop", "A, B and split brighter (x1.41)", character(']'));
  add(ActionId::ExposureDown, "exposure_down", "View", "Exposure - 1/2 stop", "A, B and split darker: a float picture's values above 1 come into view", character('['));
  add(ActionId::OffsetUp, "offset_up", "View", "Offset + 0.05", "A, B and split: added after the exposure (tev's convention), in the screen's [0, 1]", character('}'));
  add(ActionId::OffsetDown, "offset_down", "View", "Offset - 0.05", "A, B and split: subtracted after the exposure", character('{'));
  add(ActionId::NextChannel, "channel", "View", "Next channel", "A, B and split show rgb, r, g, b, a or the luminance", key(GLFW_KEY_K));
  add(ActionId::ToggleChannelMap, "channel_map", "View", "Colour map for one channel", "one channel or the luminance through the colour map (its legend beside the picture)", key(GLFW_KEY_K, kShift));
  add(ActionId::NextTransfer, "transfer", "View", "Transfer: linear, sRGB, gamma", "how values reach the screen: as stored (an 8-bit picture's bytes are sRGB already), sRGB-encoded (linear float data) or v^(1/gamma)", key(GLFW_KEY_Y));
  add(ActionId::NextRange, "range", "View", "Range: nominal, min-max, percentiles", "what maps to the screen's black and white: [0, 1], the picture's min and max, or its percentiles (0.1 % - 99.9 % unless set)", key(GLFW_KEY_F, kShift));
  add(ActionId::ResetDisplay, "reset_display", "View", "Reset the display transform", "exposure 0, offset 0, rgb, linear, the nominal range, no colour map", key(GLFW_KEY_0, kShift));
  add(ActionId::JumpToLargest, "jump", "View", "Jump to the largest difference", "centre and zoom on where |A-B| is largest", key(GLFW_KEY_J));
  add(ActionId::ToggleInspector, "inspector", "View", "Inspector", "values under the cursor; on the pixels when zoomed in", key(GLFW_KEY_I));
  add(ActionId::TogglePanels, "panels", "View", "Hide panels", "hide or show every panel (the picture fills the window)", key(GLFW_KEY_TAB));
  add(ActionId::ToggleOverlay, "overlay", "View", "Timing overlay", "show or hide the timing overlay", key(GLFW_KEY_T));

  add(ActionId::CompareAll, "compare_all", "Tools", "Compare all methods", "time every method that can run here and measure its error", key(GLFW_KEY_C, kShift));
  add(ActionId::ToggleVsync, "vsync", "Tools", "Vsync", "swap at the display's rate, or as fast as possible", key(GLFW_KEY_V));
  add(ActionId::TogglePooling, "pooling", "Tools", "2x2 pooling", "off, max or average 2x2 pooling of the results", key(GLFW_KEY_P));
  add(ActionId::Help, "help", "Tools", "Help", "this list of actions and keys", character('?'), key(GLFW_KEY_F1));
  add(ActionId::CloseWindow, "close", "Tools", "Close the window on top", "the help, else the folder chooser, else compare all", key(GLFW_KEY_ESCAPE));
  return t;
}

std::string key_name(int code) {
  if (code >= GLFW_KEY_A && code <= GLFW_KEY_Z) return std::string(1, static_cast<char>('A' + code - GLFW_KEY_A));
  if (code >= GLFW_KEY_0 && code <= GLFW_KEY_9) return std::string(1, static_cast<char>('0' + code - GLFW_KEY_0));
  if (code >= GLFW_KEY_F1 && code <= GLFW_KEY_F12) return "F" + std::to_string(code - GLFW_KEY_F1 + 1);
  switch (code) {
    case GLFW_KEY_SPACE: return "Space";
    case GLFW_KEY_TAB: return "Tab";
    case GLFW_KEY_ESCAPE: return "Esc";
    case GLFW_KEY_UP: return "Up";
    case GLFW_KEY_DOWN: return "Down";
    default: return "key " + std::to_string(code);
  }
}

}  // namespace

const std::vector<Action>& action_table() {
  static const std::vector<Action> table = make_table();
  return table;
}

std::string shortcut_text(const Shortcut& s) {
  if (s.kind == Shortcut::Kind::Character) {
    if (s.character == ' ') return "Space";
    return std::string(1, static_cast<char>(s.character));
  }
  if (s.kind != Shortcut::Kind::Key) return {};
  std::string text;
  if (s.mods & kCtrl) text += "Ctrl+";
  if (s.mods & GLFW_MOD_ALT) text += "Alt+";
  if (s.mods & kShift) text += "Shift+";
  return text + key_name(s.key);
}

std::string shortcut_list(const Action& action) {
  std::string text;
  for (const Shortcut& s : action.shortcuts) {
    if (s.kind == Shortcut::Kind::None) continue;
    if (!text.empty()) text += " or ";
    text += shortcut_text(s);
  }
  return text;
}

const Action* action_for_key(int key_code, int mods) {
  mods &= kShift | kCtrl | GLFW_MOD_ALT;
  for (const Action& action : action_table())
    for (const Shortcut& s : action.shortcuts)
      if (s.kind == Shortcut::Kind::Key && s.key == key_code && s.mods == mods) return &action;
  return nullptr;
}

const Action* action_for_character(unsigned c) {
  for (const Action& action : action_table())
    for (const Shortcut& s : action.shortcuts)
      if (s.kind == Shortcut::Kind::Character && s.character == c) return &action;
  return nullptr;
}

const Action* find_action(std::string_view name, int argument) {
  for (const Action& action : action_table())
    if (name == action.name && action.argument == argument) return &action;
  return nullptr;
}

const Action& first_action(ActionId id) {
  for (const Action& action : action_table())
    if (action.id == id) return action;
  return action_table().front();  // unreachable: every id is in the table (tested)
}

std::vector<std::pair<std::string, std::vector<HelpLine>>> help_sections(const ActionOffers& offers) {
  std::vector<std::pair<std::string, std::vector<HelpLine>>> sections;
  for (const Action& action : action_table()) {
    const ActionOffer offer = offers ? offers(action) : ActionOffer{true, {}, {}, false, {}};
    if (!offer.offered) continue;
    if (sections.empty() || sections.back().first != action.menu) sections.emplace_back(action.menu, std::vector<HelpLine>{});
    auto& lines = sections.back().second;
    if (action.id == ActionId::MethodA || action.id == ActionId::MethodB) {
      if (action.argument != 0) continue;  // the nine keys are one line
      const bool a = action.id == ActionId::MethodA;
      lines.push_back({a ? "1 ... 9" : "Shift+1 ... 9",
                       std::string(a ? "slot A" : "slot B") +
                           " = the method at that place in the list (methods beyond 9: pick them in the list)"});
      continue;
    }
    lines.push_back({shortcut_list(action), (offer.label.empty() ? action.label : offer.label) + ": " +
                                                (offer.help.empty() ? std::string(action.help) : offer.help)});
  }
  return sections;
}

std::string help_text() {
  std::string text;
  for (const auto& [menu, lines] : help_sections()) {
    text += "  " + menu + "\n";
    for (const HelpLine& line : lines) {
      std::string keys = "    " + line.keys;
      if (keys.size() < 22) keys.resize(22, ' ');
      text += keys + " " + line.what + "\n";
    }
  }
  text += "    wheel, drag           zoom around the cursor, pan (drag the divider in the split view,\n"
          "                          the panel's left edge to resize it)\n";
  return text;
}

const Action* key_for_typed_character(unsigned c) {
  if (const Action* action = action_for_character(c)) return action;
  if (c >= '0' && c <= '9') return action_for_key(GLFW_KEY_0 + static_cast<int>(c - '0'), 0);
  if (c >= 'a' && c <= 'z') return action_for_key(GLFW_KEY_A + static_cast<int>(c - 'a'), 0);
  if (c >= 'A' && c <= 'Z') return action_for_key(GLFW_KEY_A + static_cast<int>(c - 'A'), kShift);
  if (c == ' ') return action_for_key(GLFW_KEY_SPACE, 0);
  return nullptr;
}

}  // namespace gausslab
