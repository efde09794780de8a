// The action table (app/actions/actions.hpp): the one list behind the menu, the keys, the tooltips, the
// help overlay, --help, --keys and --script.
#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <set>
#include <string>

#include "actions/actions.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {
namespace {

TEST(Actions, EveryActionHasAShortcutAndNoShortcutIsShared) {
  std::set<std::string> seen;
  for (const Action& action : action_table()) {
    SCOPED_TRACE(action.label);
    int count = 0;
    for (const Shortcut& s : action.shortcuts) {
      if (s.kind == Shortcut::Kind::None) continue;
      ++count;
      const std::string key = s.kind == Shortcut::Kind::Key
                                  ? "key " + std::to_string(s.key) + "+" + std::to_string(s.mods)
                                  : "char " + std::to_string(s.character);
      EXPECT_TRUE(seen.insert(key).second) << shortcut_text(s) << " is used twice";
    }
    EXPECT_GE(count, 1);
  }
  // A typed symbol must not also be a key chord's character on a US layout (e.g. '?' and Shift+/).
  EXPECT_EQ(action_for_key(GLFW_KEY_SLASH, GLFW_MOD_SHIFT), nullptr);
  EXPECT_EQ(action_for_key(GLFW_KEY_EQUAL, 0), nullptr);
  EXPECT_EQ(action_for_key(GLFW_KEY_MINUS, GLFW_MOD_SHIFT), nullptr);
}

TEST(Actions, EveryActionIsInTheHelpWithItsKeys) {
  const std::string help = help_text();
  const std::string usage = viewer_usage();
  for (const Action& action : action_table()) {
    SCOPED_TRACE(action.label);
    if (action.id == ActionId::MethodA || action.id == ActionId::MethodB) continue;  // folded: checked below
    EXPECT_NE(help.find(action.label), std::string::npos);
    EXPECT_NE(help.find(shortcut_list(action)), std::string::npos);
    EXPECT_NE(usage.find(action.label), std::string::npos) << "--help lacks it";
  }
  EXPECT_NE(help.find("1 ... 9"), std::string::npos);
  EXPECT_NE(help.find("Shift+1 ... 9"), std::string::npos);
  EXPECT_NE(help.find("methods beyond 9: pick them in the list"), std::string::npos);
}

TEST(Actions, EveryIdIsInTheTableAndNamesAreUnique) {
  std::set<std::string> names;
  for (const Action& action : action_table()) {
    EXPECT_EQ(&first_action(action.id) == &action || action.argument > 0 || first_action(action.id).id == action.id, true);
    EXPECT_TRUE(names.insert(std::string(action.name) + " " + std::to_string(action.argument)).second) << action.name;
    EXPECT_EQ(find_action(action.name, action.argument), &action);
  }
  for (int id = 0; id <= static_cast<int>(kLastActionId); ++id)
    EXPECT_EQ(static_cast<int>(first_action(static_cast<ActionId>(id)).id), id) << "action id " << id << " has no entry";
}

TEST(Actions, KeysFindTheirActions) {
  EXPECT_EQ(action_for_key(GLFW_KEY_S, GLFW_MOD_CONTROL)->id, ActionId::SaveA);
  EXPECT_EQ(action_for_key(GLFW_KEY_S, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT)->id, ActionId::SaveView);
  EXPECT_EQ(action_for_key(GLFW_KEY_S, GLFW_MOD_CONTROL | GLFW_MOD_CAPS_LOCK)->id, ActionId::SaveA);  // Caps Lock ignored
  const Action* b3 = action_for_key(GLFW_KEY_3, GLFW_MOD_SHIFT);
  ASSERT_NE(b3, nullptr);
  EXPECT_EQ(b3->id, ActionId::MethodB);
  EXPECT_EQ(b3->argument, 2);
  EXPECT_EQ(action_for_key(GLFW_KEY_1, 0)->id, ActionId::MethodA);
  EXPECT_EQ(action_for_key(GLFW_KEY_F1, 0)->id, ActionId::Help);
  EXPECT_EQ(action_for_character('?')->id, ActionId::Help);
  // Zoom on + and - as in tev and HDRView; sigma on the arrows (issue 39).
  EXPECT_EQ(action_for_character('+')->id, ActionId::ZoomIn);
  EXPECT_EQ(action_for_character('=')->id, ActionId::ZoomIn);
  EXPECT_EQ(action_for_character('-')->id, ActionId::ZoomOut);
  EXPECT_EQ(action_for_key(GLFW_KEY_UP, 0)->id, ActionId::SigmaUpSmall);
  EXPECT_EQ(action_for_key(GLFW_KEY_DOWN, GLFW_MOD_SHIFT)->id, ActionId::SigmaDownLarge);
  EXPECT_EQ(shortcut_list(first_action(ActionId::SigmaUpLarge)), "Shift+Up");
  EXPECT_EQ(action_for_character('x'), nullptr);  // letters are keys, not characters
  // --keys: a letter or digit stands for its key, upper case for Shift.
  EXPECT_EQ(key_for_typed_character('m')->id, ActionId::NextView);
  EXPECT_EQ(key_for_typed_character('2')->argument, 1);
  EXPECT_EQ(key_for_typed_character('B')->id, ActionId::ViewB);
  EXPECT_EQ(key_for_typed_character('=')->id, ActionId::ZoomIn);
  EXPECT_EQ(shortcut_text(first_action(ActionId::SaveView).shortcuts[0]), "Ctrl+Shift+S");
  EXPECT_EQ(shortcut_list(first_action(ActionId::Help)), "? or F1");
}

}  // namespace
}  // namespace gausslab
