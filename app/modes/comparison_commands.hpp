#pragma once
// What each action of the table and each --script step does in the comparison mode: it edits the
// setting asked for (applied at the next frame's start), the view or the panels' windows, or asks
// for a save or for compare-all (the dispatcher does Quit, Help and Esc's part for the help). Also
// what the comparison offers of the table (the menu's ticks and method names) and the soak's cycle.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actions/action_dispatcher.hpp"
#include "comparison/comparison.hpp"
#include "comparison/comparison_saves.hpp"
#include "panels/comparison_panels.hpp"
#include "viewer/viewer_mode.hpp"

namespace gausslab {

class ComparisonCommands {
 public:
  ComparisonCommands(Comparison& comparison, ViewState& view, ComparisonPanels& panels, ComparisonSaves& saves,
                     ActionDispatcher& actions)
      : comparison_(comparison), view_(view), panels_(panels), saves_(saves), actions_(actions) {}

  ActionOffer offer(const Action& action) const;
  // area: the picture's (1:1).
  void perform(const Action& action, FrameContext& frame, const PictureArea& area);
  // A --script step: an offered action's name (queued for the next frame) or one of the commands of
  // viewer/script.hpp; returns "" or why it could not.
  std::string run(const std::string& command, const std::string& argument);
  // One cycle of steps that visits every setting, for --soak.
  std::vector<std::pair<std::string, std::string>> soak_cycle() const;

  // Save the view: asked for, and taken (the next frame is read back).
  bool take_save_view();
  // Where a script put the mouse ('mouse X Y'), if it did.
  const std::optional<Vec2>& mouse() const { return mouse_; }

 private:
  Comparison& comparison_;
  ViewState& view_;
  ComparisonPanels& panels_;
  ComparisonSaves& saves_;
  ActionDispatcher& actions_;
  // The keys 1..9 (A) and Shift+1..9 (B): the method at `place` in the list, or, where it is greyed,
  // a plain status message with the reason and the keys that work (never a red flash).
  void select_by_place(int slot, int place);
  bool save_view_asked_ = false;
  std::optional<Vec2> mouse_;
};

}  // namespace gausslab
