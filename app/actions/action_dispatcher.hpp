#pragma once
// Where every mode's actions come from, in order: those queued by the menu, the panels' buttons and
// --script steps, then --keys (a letter or digit stands for its key), the typed characters (the
// layout-dependent symbols) and the window's key events (each press seen even when press and release
// fall in one frame). While a text field has the keys, it takes them all. An action the mode does
// not offer (ActionOffers) is ignored. What every mode does alike is done here: Quit closes the
// window, Help opens or closes the help, CloseWindow closes the help (with no help open it goes to
// the mode, which closes its own windows); the rest goes to the mode.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actions/actions.hpp"
#include "gausslab/render/glfw_window.hpp"

namespace gausslab {

// A frame's input that may trigger actions, as the frame loop took it from the window and Dear ImGui.
struct ActionInput {
  std::string typed_keys;            // --keys, in the first live frame
  std::vector<unsigned> characters;  // typed characters, queued between frames
  std::vector<KeyEvent> key_events;  // the window's key events since the last frame, in order
  bool typing = false;               // a text field has the keys
  GlfwWindow* window = nullptr;      // null offscreen
};

class ActionDispatcher {
 public:
  using Perform = std::function<void(const Action&)>;
  // print_events: --events, a stdout line per action performed ("gausslab-event: action help").
  ActionDispatcher(ActionOffers offers, bool print_events);

  // Performed at the next dispatch, after those queued before it.
  void queue(const Action& action) { queued_.push_back(&action); }
  void queue(ActionId id) { queue(first_action(id)); }
  // Performs this frame's actions in order: the mode's through `perform`.
  void dispatch(const ActionInput& input, const Perform& perform);

  const ActionOffers& offers() const { return offers_; }
  bool offered(const Action& action) const;
  // The help window (help_window.hpp) is open; its close button clears it.
  bool& help_open() { return help_open_; }
  // --events: prints "gausslab-event: LINE" when the line said under `key` changed (where a menu is,
  // which entries are greyed: what a driver needs to click and check).
  void report(const std::string& key, const std::string& line);

 private:
  void run(const Action& action, const ActionInput& input, const Perform& perform);

  ActionOffers offers_;
  bool print_events_;
  bool help_open_ = false;
  std::vector<const Action*> queued_;
  int blink_key_down_ = -1;  // the key that pressed Blink, while held
  double blink_pressed_at_ = 0;
  std::map<std::string, std::string> reported_;  // report(): the last line said under each key
};

}  // namespace gausslab
