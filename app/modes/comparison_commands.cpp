#include "modes/comparison_commands.hpp"

#include <algorithm>
#include <sstream>

#include "actions/keyboard.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "modes/view_actions.hpp"
#include "viewer/display_options.hpp"

namespace gausslab {

namespace {

constexpr GainRange kGainRange{1.0, kMaxDifferenceGain};

// "X Y" or "X,Y" of a script step.
std::vector<double> numbers_of(const std::string& command, std::string text) {
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  std::vector<double> values;
  for (std::string word; words >> word;) values.push_back(parse_double(command, word));
  return values;
}

}  // namespace

ActionOffer ComparisonCommands::offer(const Action& action) const {
  const FilterState& asked = comparison_.settings().requested();
  const MethodChoices& choices = comparison_.settings().choices();
  ActionOffer offer{true, {}, {}, false, {}};
  switch (action.id) {
    case ActionId::StepFrame: offer.offered = false; break;  // the sequence mode's
    case ActionId::MethodA:
    case ActionId::MethodB:
      offer.offered = action.argument < choices.size();
      if (!offer.offered) break;
      offer.label = std::string(action.id == ActionId::MethodA ? "A = " : "B = ") + choices.label(action.argument);
      offer.checked = (action.id == ActionId::MethodA ? asked.method_a : asked.method_b) == action.argument;
      offer.unavailable = choices.list()[static_cast<std::size_t>(action.argument)].blocked;
      break;
    case ActionId::ToggleContinuous: offer.checked = asked.continuous; break;
    case ActionId::ToggleInspector: offer.checked = view_.inspector; break;
    case ActionId::SignedDifference: offer.checked = view_.signed_difference; break;
    case ActionId::FalseColour: offer.checked = view_.false_colour; break;
    case ActionId::ToggleOverlay: offer.checked = !view_.overlay_hidden; break;
    case ActionId::TogglePixelGrid: offer.checked = view_.pixel_grid; break;
    default: break;
  }
  return offer;
}

bool ComparisonCommands::take_save_view() {
  const bool asked = save_view_asked_;
  save_view_asked_ = false;
  return asked;
}

void ComparisonCommands::perform(const Action& action, FrameContext& frame, const PictureArea& area) {
  const ResultPipeline& pipeline = comparison_.runs().pipeline();
  if (perform_view_action(action.id, view_, kGainRange, pipeline.width(), pipeline.height(), area.width, area.height))
    return;
  ComparisonSettings& settings = comparison_.settings();
  FilterState& asked = settings.requested();
  StatusMessages& messages = comparison_.messages();
  switch (action.id) {
    case ActionId::Open:
      view_.panels_hidden = false;
      panels_.picture.focus_open_field = true;
      break;
    case ActionId::Reload:
      if (comparison_.picture().path.empty())
        messages.say("the built-in picture cannot be reloaded");
      else
        comparison_.open_file(comparison_.picture().path);
      break;
    case ActionId::SaveA: saves_.save_result(comparison_, 0, view_); break;
    case ActionId::SaveB: saves_.save_result(comparison_, 1, view_); break;
    case ActionId::SaveDifference: saves_.save_difference(comparison_, view_); break;
    case ActionId::SaveView: save_view_asked_ = true; break;
    case ActionId::ChooseFolder:
      panels_.folder.open = true;
      panels_.folder.browsing = saves_.folder().empty() ? "." : saves_.folder();
      break;
    case ActionId::ExportCompareAll: messages.say(saves_.export_compare_all(comparison_)); break;
    case ActionId::CloseWindow:  // the help is the dispatcher's
      if (panels_.folder.open)
        panels_.folder.open = false;
      else
        panels_.compare_all_open = false;
      break;
    case ActionId::MethodA:
    case ActionId::MethodB: select_by_place(action.id == ActionId::MethodA ? 0 : 1, action.argument); break;
    case ActionId::BFile:
    case ActionId::AFile:
      panels_.reference_file = ReferenceFileField{true, action.id == ActionId::AFile ? 0 : 1,
                                                  comparison_.reference(action.id == ActionId::AFile ? 0 : 1).image.path, true, {}};
      break;
    case ActionId::BOriginal: settings.select(1, kOriginalPicture); break;
    case ActionId::BExact: settings.select(1, kExactGaussian); break;
    case ActionId::AExact: settings.select(0, kExactGaussian); break;
    case ActionId::SwapSlots: std::swap(asked.method_a, asked.method_b); break;
    case ActionId::SigmaUpSmall: asked.params.sigma = step_sigma(asked.params.sigma, 0.1); break;
    case ActionId::SigmaDownSmall: asked.params.sigma = step_sigma(asked.params.sigma, -0.1); break;
    case ActionId::SigmaUpLarge: asked.params.sigma = step_sigma(asked.params.sigma, 1.0); break;
    case ActionId::SigmaDownLarge: asked.params.sigma = step_sigma(asked.params.sigma, -1.0); break;
    case ActionId::NextBorder: {
      const int next = (static_cast<int>(asked.params.border) + 1) % static_cast<int>(std::size(kAllBorderModes));
      asked.params.border = kAllBorderModes[next];
      break;
    }
    case ActionId::ToggleContinuous: asked.continuous = !asked.continuous; break;
    case ActionId::CycleRepeat: asked.repeat = asked.repeat >= 64 ? 1 : asked.repeat * 4; break;
    case ActionId::Blink: view_.blink_swapped = !view_.blink_swapped; break;
    case ActionId::SignedDifference: view_.signed_difference = !view_.signed_difference; break;
    case ActionId::FalseColour: view_.false_colour = !view_.false_colour; break;
    case ActionId::JumpToLargest: {
      const std::optional<ComparisonNumbers> numbers = current_numbers(comparison_);
      if (!numbers || !numbers->a_vs_b || numbers->a_vs_b->unrounded.max_x < 0) {
        messages.say("no A-vs-B numbers yet: nothing to jump to");
        break;
      }
      const DifferenceFigures& f = numbers->a_vs_b->unrounded;
      view_.fit = false;
      view_.transform.center = {f.max_x + 0.5, f.max_y + 0.5};
      view_.transform.zoom = std::max(view_.transform.zoom, 32.0);
      messages.say("the largest |A-B| is " + levels_text(f.max_abs, false) + " levels, at (" + std::to_string(f.max_x) +
                   ", " + std::to_string(f.max_y) + ", " + "rgba"[std::clamp(f.max_channel, 0, 3)] + ")");
      break;
    }
    case ActionId::ToggleInspector: view_.inspector = !view_.inspector; break;
    case ActionId::TogglePanels: view_.panels_hidden = !view_.panels_hidden; break;
    case ActionId::ToggleOverlay: view_.overlay_hidden = !view_.overlay_hidden; break;
    case ActionId::CompareAll:
      panels_.compare_all_open = true;
      comparison_.start_compare_all();
      break;
    case ActionId::ToggleVsync:
      if (frame.window) {
        frame.window->set_vsync(!frame.window->vsync());
        frame.frame_ms.clear();
        messages.say(frame.window->vsync() ? "vsync on: frames follow the display" : "vsync off: frames as fast as they go");
      } else {
        messages.say("no vsync offscreen");
      }
      break;
    case ActionId::TogglePooling:
      settings.set_pool(asked.pool == PoolMode::None     ? PoolMode::Max2x2
                        : asked.pool == PoolMode::Max2x2 ? PoolMode::Avg2x2
                                                         : PoolMode::None);
      break;
    default: break;  // the dispatcher's (Quit, Help), the view's (above), the sequence mode's (StepFrame)
  }
}

void ComparisonCommands::select_by_place(int slot, int place) {
  ComparisonSettings& settings = comparison_.settings();
  const MethodChoices& choices = settings.choices();
  if (place >= choices.size() || choices.list()[static_cast<std::size_t>(place)].blocked.empty()) {
    settings.select(slot, place);
    return;
  }
  // A greyed entry (a GPU method without a device, say): not an error, so no red flash; the status
  // names the key, the method, the reason once, and the keys that do pick something here.
  const std::string key = (slot == 0 ? "" : "Shift+") + std::to_string(place + 1);
  std::string usable;
  for (int i = 0; i < std::min(choices.size(), 9); ++i)
    if (choices.list()[static_cast<std::size_t>(i)].blocked.empty())
      usable += (usable.empty() ? "" : ", ") + (slot == 0 ? std::string() : std::string("Shift+")) +
                std::to_string(i + 1) + " " + choices.id(i);
  comparison_.messages().say(key + " (" + std::string(slot == 0 ? "A" : "B") + " = " + choices.id(place) +
                             ") is greyed here: " + choices.list()[static_cast<std::size_t>(place)].blocked +
                             (usable.empty() ? std::string() : ". Keys that pick a method here: " + usable) +
                             "; every method is in the Slots menu");
}

std::string ComparisonCommands::run(const std::string& command, const std::string& argument) {
  // The action table's names first (method_a / method_b take the place 1..9).
  int number = -1;
  if (command == "method_a" || command == "method_b") {
    try {
      number = parse_int(command, argument, 1, 9) - 1;
    } catch (const std::exception& error) {
      return error.what();
    }
  }
  if (const Action* action = find_action(command, number); action && actions_.offered(*action)) {
    actions_.queue(*action);  // performed at the start of the next frame
    return {};
  }
  ComparisonSettings& settings = comparison_.settings();
  FilterState& asked = settings.requested();
  try {
    if (command == "a" || command == "b") return settings.select_by_name(command == "a" ? 0 : 1, argument);
    if (command == "file_a" || command == "file_b") {  // the reference slot; a refusal is said, the run goes on
      comparison_.set_slot_file(command == "file_a" ? 0 : 1, argument);
      return {};
    }
    if (command == "sigma") {
      FilterParams params = asked.params;
      params.sigma = parse_double(command, argument);
      if (std::string invalid = validate(params); !invalid.empty()) return invalid;
      asked.params = params;
      return {};
    }
    if (command == "border") {
      asked.params.border = parse_border(command, argument);
      return {};
    }
    if (command == "gain") {
      view_.gain = parse_double(command, argument);
      return {};
    }
    if (command == "display") {  // 'display range 0.1,99.9': the display transform's settings
      const std::size_t space = argument.find(' ');
      if (space == std::string::npos) return "display needs a setting and a value, e.g. 'display exposure -1'";
      set_display_setting(view_.display, "display " + argument.substr(0, space), argument.substr(0, space),
                          argument.substr(argument.find_first_not_of(' ', space)));
      return {};
    }
    if (command == "view") {
      for (int i = 0; i < static_cast<int>(CompareMode::Count); ++i)
        if (argument == to_string(static_cast<CompareMode>(i))) {
          view_.mode = static_cast<CompareMode>(i);
          return {};
        }
      return "unknown view '" + argument + "'; use a, b, split or diff";
    }
    if (command == "pooling") {
      const std::optional<PoolMode> mode = pool_mode_from_string(argument);
      if (!mode) return "unknown pooling '" + argument + "'; use none, max2x2 or avg2x2";
      settings.set_pool(*mode);
      return {};
    }
    if (command == "zoom") {  // screen pixels per picture pixel, around the view's centre
      view_.fit = false;
      view_.transform.zoom = std::clamp(parse_double(command, argument), kMinZoom, kMaxZoom);
      return {};
    }
    if (command == "look") {  // centre the view on the picture point X Y
      const std::vector<double> xy = numbers_of(command, argument);
      if (xy.size() != 2) return "look needs X Y, e.g. 'look 100 200'";
      view_.fit = false;
      view_.transform.center = {xy[0], xy[1]};
      return {};
    }
    if (command == "mouse") {  // where the mouse is, in window pixels (offscreen runs have none)
      const std::vector<double> xy = numbers_of(command, argument);
      if (xy.size() != 2) return "mouse needs X Y in window pixels";
      mouse_ = Vec2{xy[0], xy[1]};
      return {};
    }
    if (command == "expand" || command == "collapse") {  // a section of the side panel
      panels_.sections.requests[argument] = command == "expand";
      return {};
    }
    if (command == "compare_all_close") {
      panels_.compare_all_open = false;
      return {};
    }
    if (command == "size") {
      if (argument == "original") {
        asked.original_size = true;
        return {};
      }
      const auto [w, h] = parse_size(command, argument);
      asked.original_size = false;
      asked.width = w;
      asked.height = h;
      return {};
    }
  } catch (const std::exception& error) {
    return error.what();
  }
  return "unknown command '" + command + "'";
}

std::vector<std::pair<std::string, std::string>> ComparisonCommands::soak_cycle() const {
  // One step changes one thing; the cycle visits every runnable method in A and in B, B as the
  // original and the exact Gaussian, four sigmas, every border and view, blink, the difference's
  // styles, a resampled picture and back, a reload of the file, and two window sizes.
  std::vector<std::pair<std::string, std::string>> steps;
  std::vector<std::string> methods;
  for (const MethodChoice& choice : comparison_.settings().choices().list())
    if (choice.blocked.empty()) methods.push_back(choice.id);
  const char* sigmas[] = {"0.7", "3", "12", "40"};
  const char* views[] = {"a", "b", "split", "diff"};
  for (std::size_t i = 0; i < methods.size(); ++i) {
    steps.emplace_back("a", methods[i]);
    steps.emplace_back("b", methods[(i + 1) % methods.size()]);
    steps.emplace_back("view", views[i % 4]);
    steps.emplace_back("sigma", sigmas[i % 4]);
    steps.emplace_back("border", to_string(kAllBorderModes[i % std::size(kAllBorderModes)]));
  }
  for (BorderMode border : kAllBorderModes) steps.emplace_back("border", to_string(border));
  for (const char* step : {"b original", "view split", "b exact", "view diff", "signed", "false_colour", "blink",
                           "signed", "false_colour", "blink", "pooling max2x2", "view split", "pooling avg2x2",
                           "pooling none", "resize 800x600", "size 640x480", "size original", "reload",
                           "resize 1280x800", "sigma 2"}) {
    const std::string text = step;
    const std::size_t space = text.find(' ');
    steps.emplace_back(text.substr(0, space), space == std::string::npos ? "" : text.substr(space + 1));
  }
  return steps;
}

}  // namespace gausslab
