// The comparison's commands: where actions come from (key events, typed characters, --keys,
// --script) and what each one does.
#include <imgui.h>
#define GLFW_INCLUDE_NONE  // key codes only; all GL goes through render/
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "modes/comparison_mode.hpp"
#include "gausslab/core/border.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/glfw_window.hpp"
#include "gausslab/render/result_pipeline.hpp"
#include "actions/keyboard.hpp"

namespace gausslab {

namespace {

// "X Y" or "X,Y" of a script step.
std::vector<double> numbers_of(const std::string& command, std::string text) {
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream words(text);
  std::vector<double> values;
  for (std::string word; words >> word;) values.push_back(parse_double(command, word));
  return values;
}

}  // namespace

ActionOffer ComparisonMode::offer(const Action& action) const {
  ActionOffer offer{true, {}, {}, false};
  switch (action.id) {
    case ActionId::StepFrame: offer.offered = false; break;  // the sequence mode's
    case ActionId::MethodA:
    case ActionId::MethodB:
      offer.offered = action.argument < static_cast<int>(choices_.size());
      if (!offer.offered) break;
      offer.label = std::string(action.id == ActionId::MethodA ? "A = " : "B = ") +
                    choices_[static_cast<std::size_t>(action.argument)].label;
      offer.checked = (action.id == ActionId::MethodA ? filter_.method_a : filter_.method_b) == action.argument;
      break;
    case ActionId::ToggleContinuous: offer.checked = filter_.continuous; break;
    case ActionId::ToggleInspector: offer.checked = view_.inspector; break;
    case ActionId::SignedDifference: offer.checked = view_.signed_difference; break;
    case ActionId::FalseColour: offer.checked = view_.false_colour; break;
    case ActionId::ToggleOverlay: offer.checked = !view_.overlay_hidden; break;
    default: break;
  }
  return offer;
}

void ComparisonMode::select_slot(int index, int choice) {
  int& target = index == 0 ? filter_.method_a : filter_.method_b;
  if (choice >= 0) {
    if (choice >= static_cast<int>(choices_.size())) {
      say("there is no method " + std::to_string(choice + 1) + " (" + std::to_string(choices_.size()) + " in the list)", true);
      return;
    }
    if (const std::string blocked = requested_refusal(choice); !blocked.empty()) {
      say(choices_[static_cast<std::size_t>(choice)].id + " cannot run: " + blocked, true);
      return;
    }
  }
  target = choice;
}

// Against the setting asked for (filter_), not the one applied at the last frame's start: script
// steps performed in one frame ('sigma 4', then 'a naive_2d') see the earlier steps' effect.
std::string ComparisonMode::requested_refusal(int choice) {
  const MethodChoice& method = choices_.at(static_cast<std::size_t>(choice));
  if (method.gpu && !pipeline_->runs_gpu_methods()) return pipeline_->path_reason();
  return slot_a_.instance(choice)->unsupported_reason(requested_problem());
}

std::string ComparisonMode::set_slot_by_name(int index, const std::string& name) {
  if (name == "original") {
    select_slot(index, kOriginalPicture);
    return {};
  }
  if (name == "exact") {
    select_slot(index, kExactGaussian);
    return {};
  }
  for (std::size_t i = 0; i < choices_.size(); ++i)
    if (choices_[i].id == name) {
      if (const std::string blocked = requested_refusal(static_cast<int>(i)); !blocked.empty())
        return name + " cannot run: " + blocked;
      select_slot(index, static_cast<int>(i));
      return {};
    }
  return "unknown method '" + name + "'; use one of " + method_id_list() + ", original or exact";
}

void ComparisonMode::perform(const Action& action, FrameContext& frame) {
  switch (action.id) {
    case ActionId::Open:
      view_.panels_hidden = false;
      focus_open_field_ = true;
      break;
    case ActionId::Reload:
      if (image_path_.empty())
        say("the built-in picture cannot be reloaded");
      else
        open_file(image_path_);
      break;
    case ActionId::SaveA: save_slot_result(0); break;
    case ActionId::SaveB: save_slot_result(1); break;
    case ActionId::SaveDifference: save_difference(); break;
    case ActionId::SaveView: pending_save_view_ = true; break;
    case ActionId::ChooseFolder:
      folder_open_ = true;
      folder_browse_ = save_folder_.empty() ? "." : save_folder_;
      break;
    case ActionId::ExportCompareAll: say(export_compare_all()); break;
    case ActionId::Quit:
    case ActionId::Help:
    case ActionId::StepFrame: break;  // the dispatcher's, and the sequence mode's
    case ActionId::CloseWindow:  // the help is the dispatcher's
      if (folder_open_)
        folder_open_ = false;
      else
        compare_all_open_ = false;
      break;
    case ActionId::MethodA: select_slot(0, action.argument); break;
    case ActionId::MethodB: select_slot(1, action.argument); break;
    case ActionId::BOriginal: select_slot(1, kOriginalPicture); break;
    case ActionId::BExact: select_slot(1, kExactGaussian); break;
    case ActionId::AExact: select_slot(0, kExactGaussian); break;
    case ActionId::SwapSlots: std::swap(filter_.method_a, filter_.method_b); break;
    case ActionId::SigmaUpSmall: filter_.params.sigma = step_sigma(filter_.params.sigma, 0.1); break;
    case ActionId::SigmaDownSmall: filter_.params.sigma = step_sigma(filter_.params.sigma, -0.1); break;
    case ActionId::SigmaUpLarge: filter_.params.sigma = step_sigma(filter_.params.sigma, 1.0); break;
    case ActionId::SigmaDownLarge: filter_.params.sigma = step_sigma(filter_.params.sigma, -1.0); break;
    case ActionId::NextBorder: {
      const int next = (static_cast<int>(filter_.params.border) + 1) % static_cast<int>(std::size(kAllBorderModes));
      filter_.params.border = kAllBorderModes[next];
      break;
    }
    case ActionId::ToggleContinuous: filter_.continuous = !filter_.continuous; break;
    case ActionId::CycleRepeat: filter_.repeat = filter_.repeat >= 64 ? 1 : filter_.repeat * 4; break;
    case ActionId::NextView: view_.mode = next_display(view_.mode); break;
    case ActionId::ViewA: view_.mode = CompareMode::A; break;
    case ActionId::ViewB: view_.mode = CompareMode::B; break;
    case ActionId::ViewSplit: view_.mode = CompareMode::Split; break;
    case ActionId::ViewDifference: view_.mode = CompareMode::Difference; break;
    case ActionId::Blink: view_.blink_swapped = !view_.blink_swapped; break;
    case ActionId::SignedDifference: view_.signed_difference = !view_.signed_difference; break;
    case ActionId::FalseColour: view_.false_colour = !view_.false_colour; break;
    case ActionId::GainUp: view_.gain = std::min(view_.gain * 2, 65536.0); break;
    case ActionId::GainDown: view_.gain = std::max(view_.gain / 2, 1.0); break;
    case ActionId::Fit: view_.fit = true; break;
    case ActionId::OneToOne:
      view_.fit = false;
      view_.transform = one_to_one_view(pipeline_->width(), pipeline_->height(), area_.width, area_.height);
      break;
    case ActionId::ToggleSampling:
      view_.sampling = view_.sampling == Sampling::Linear ? Sampling::Nearest : Sampling::Linear;
      break;
    case ActionId::JumpToLargest: {
      const std::optional<ComparisonNumbers> numbers = current_numbers();
      if (!numbers || !numbers->a_vs_b || numbers->a_vs_b->unrounded.max_x < 0) {
        say("no A-vs-B numbers yet: nothing to jump to");
        break;
      }
      const DifferenceFigures& f = numbers->a_vs_b->unrounded;
      view_.fit = false;
      view_.transform.center = {f.max_x + 0.5, f.max_y + 0.5};
      view_.transform.zoom = std::max(view_.transform.zoom, 32.0);
      say("the largest |A-B| is at (" + std::to_string(f.max_x) + ", " + std::to_string(f.max_y) + ")");
      break;
    }
    case ActionId::ToggleInspector: view_.inspector = !view_.inspector; break;
    case ActionId::TogglePanels: view_.panels_hidden = !view_.panels_hidden; break;
    case ActionId::ToggleOverlay: view_.overlay_hidden = !view_.overlay_hidden; break;
    case ActionId::CompareAll:
      compare_all_open_ = true;
      compare_all_->start(exact_key(), picture_);
      break;
    case ActionId::ToggleVsync:
      if (frame.window) {
        frame.window->set_vsync(!frame.window->vsync());
        frame.frame_ms.clear();
        say(frame.window->vsync() ? "vsync on: frames follow the display" : "vsync off: frames as fast as they go");
      } else {
        say("no vsync offscreen");
      }
      break;
    case ActionId::TogglePooling: {
      const PoolMode next = filter_.pool == PoolMode::None ? PoolMode::Max2x2
                            : filter_.pool == PoolMode::Max2x2 ? PoolMode::Avg2x2
                                                               : PoolMode::None;
      set_pooling(next);
      break;
    }
  }
}

std::string ComparisonMode::run_command(const std::string& command, const std::string& argument) {
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
  try {
    if (command == "a" || command == "b") return set_slot_by_name(command == "a" ? 0 : 1, argument);
    if (command == "sigma") {
      FilterParams params = filter_.params;
      params.sigma = parse_double(command, argument);
      if (std::string invalid = validate(params); !invalid.empty()) return invalid;
      filter_.params = params;
      return {};
    }
    if (command == "border") {
      filter_.params.border = parse_border(command, argument);
      return {};
    }
    if (command == "gain") {
      view_.gain = parse_double(command, argument);
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
      set_pooling(*mode);
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
      mouse_override_ = Vec2{xy[0], xy[1]};
      return {};
    }
    if (command == "expand" || command == "collapse") {  // a section of the side panel
      section_requests_[argument] = command == "expand";
      return {};
    }
    if (command == "compare_all_close") {
      compare_all_open_ = false;
      return {};
    }
    if (command == "size") {
      if (argument == "original") {
        filter_.original_size = true;
        return {};
      }
      const auto [w, h] = parse_size(command, argument);
      filter_.original_size = false;
      filter_.width = w;
      filter_.height = h;
      return {};
    }
  } catch (const std::exception& error) {
    return error.what();
  }
  return "unknown command '" + command + "'";
}

void ComparisonMode::set_pooling(PoolMode mode) {
  if (mode != PoolMode::None) {
    if (const std::string problem = pool_problem(pipeline_->width(), pipeline_->height()); !problem.empty()) {
      say("2x2 pooling is not applied: " + problem, true);
      return;
    }
  }
  filter_.pool = mode;
  say(mode == PoolMode::None ? "pooling off" : std::string("2x2 pooling: ") + to_string(mode) + " (the pooled result is shown where the blurred one was)");
}

std::vector<std::pair<std::string, std::string>> ComparisonMode::soak_cycle() const {
  // One step changes one thing; the cycle visits every runnable method in A and in B, B as the
  // original and the exact Gaussian, four sigmas, every border and view, blink, the difference's
  // styles, a resampled picture and back, a reload of the file, and two window sizes.
  std::vector<std::pair<std::string, std::string>> steps;
  std::vector<std::string> methods;
  for (const MethodChoice& choice : choices_)
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
  steps.emplace_back("b", "original");
  steps.emplace_back("view", "split");
  steps.emplace_back("b", "exact");
  steps.emplace_back("view", "diff");
  steps.emplace_back("signed", "");
  steps.emplace_back("false_colour", "");
  steps.emplace_back("blink", "");
  steps.emplace_back("signed", "");
  steps.emplace_back("false_colour", "");
  steps.emplace_back("blink", "");
  steps.emplace_back("pooling", "max2x2");
  steps.emplace_back("view", "split");
  steps.emplace_back("pooling", "avg2x2");
  steps.emplace_back("pooling", "none");
  steps.emplace_back("resize", "800x600");
  steps.emplace_back("size", "640x480");
  steps.emplace_back("size", "original");
  steps.emplace_back("reload", "");
  steps.emplace_back("resize", "1280x800");
  steps.emplace_back("sigma", "2");
  return steps;
}

}  // namespace gausslab
