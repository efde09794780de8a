#include "actions/action_dispatcher.hpp"

#include <cstdio>

namespace gausslab {

namespace {

constexpr double kBlinkHoldSeconds = 0.3;  // longer than this: a hold (shows the other slot while held)

}  // namespace

ActionDispatcher::ActionDispatcher(ActionOffers offers, bool print_events)
    : offers_(std::move(offers)), print_events_(print_events) {}

void ActionDispatcher::report(const std::string& key, const std::string& line) {
  if (!print_events_) return;
  std::string& last = reported_[key];
  if (last == line) return;
  last = line;
  std::printf("gausslab-event: %s\n", line.c_str());
  std::fflush(stdout);
}

bool ActionDispatcher::offered(const Action& action) const { return !offers_ || offers_(action).offered; }

void ActionDispatcher::run(const Action& action, const ActionInput& input, const Perform& perform) {
  if (!offered(action)) return;
  if (print_events_) {
    std::printf("gausslab-event: action %s%s\n", action.name,
                action.argument >= 0 ? (" " + std::to_string(action.argument + 1)).c_str() : "");
    std::fflush(stdout);
  }
  switch (action.id) {
    case ActionId::Quit:
      if (input.window) input.window->request_close();
      return;
    case ActionId::Help: help_open_ = !help_open_; return;
    case ActionId::CloseWindow:
      if (help_open_) {
        help_open_ = false;
        return;
      }
      break;
    default: break;
  }
  perform(action);
}

void ActionDispatcher::dispatch(const ActionInput& input, const Perform& perform) {
  std::vector<const Action*> queued;
  queued.swap(queued_);
  for (const Action* action : queued) run(*action, input, perform);
  for (unsigned char c : input.typed_keys)
    if (const Action* action = key_for_typed_character(c)) run(*action, input, perform);
  if (input.typing) return;
  for (unsigned c : input.characters)
    if (const Action* action = action_for_character(c)) run(*action, input, perform);
  for (const KeyEvent& event : input.key_events) {
    if (event.kind == KeyEvent::Kind::Release) {
      // A hold of the blink key shows the other slot while held: its release swaps back.
      if (event.key == blink_key_down_) {
        if (event.time_s - blink_pressed_at_ >= kBlinkHoldSeconds) perform(first_action(ActionId::Blink));
        blink_key_down_ = -1;
      }
      continue;
    }
    if (event.kind == KeyEvent::Kind::Repeat) continue;
    const Action* action = action_for_key(event.key, event.mods);
    if (!action) continue;
    if (action->id == ActionId::Blink && offered(*action)) {
      blink_key_down_ = event.key;
      blink_pressed_at_ = event.time_s;
    }
    run(*action, input, perform);
  }
}

}  // namespace gausslab
