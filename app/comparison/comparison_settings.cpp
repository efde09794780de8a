#include "comparison/comparison_settings.hpp"

#include "comparison/slots.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

ComparisonSettings::ComparisonSettings(const FilterState& first, const ResultPipeline& pipeline, Slot& asker,
                                       StatusMessages& messages)
    : requested_(first), applied_(first), pipeline_(pipeline), asker_(asker), messages_(messages) {}

FilterProblem ComparisonSettings::problem() const {
  return FilterProblem{pipeline_.width(), pipeline_.height(), PixelFormat::Rgba8, applied_.params};
}

void ComparisonSettings::update_choices() {
  choices_.update(problem(), pipeline_.path(), pipeline_.runs_gpu_methods() ? std::string() : pipeline_.path_reason(),
                  asker_);
}

// Against the setting asked for, not the one applied at the last frame's start: script steps
// performed in one frame ('sigma 4', then 'a naive_2d') see the earlier steps' effect.
std::string ComparisonSettings::refusal(int choice) const {
  const MethodChoice& method = choices_.list().at(static_cast<std::size_t>(choice));
  if (method.gpu && !pipeline_.runs_gpu_methods()) return pipeline_.path_reason();
  const FilterProblem asked{pipeline_.width(), pipeline_.height(), PixelFormat::Rgba8, requested_.params};
  return asker_.instance(choice)->unsupported_reason(asked);
}

void ComparisonSettings::select(int slot, int choice) {
  if (choice >= 0) {
    if (choice >= choices_.size()) {
      messages_.say("there is no method " + std::to_string(choice + 1) + " (" + std::to_string(choices_.size()) +
                        " in the list)",
                    true);
      return;
    }
    if (const std::string blocked = refusal(choice); !blocked.empty()) {
      messages_.say(choices_.id(choice) + " cannot run: " + blocked, true);
      return;
    }
  }
  (slot == 0 ? requested_.method_a : requested_.method_b) = choice;
}

std::string ComparisonSettings::select_by_name(int slot, const std::string& name) {
  if (name == "original" || name == "exact") {
    select(slot, name == "original" ? kOriginalPicture : kExactGaussian);
    return {};
  }
  const int choice = choices_.find(name);
  if (choice < 0) return "unknown method '" + name + "'; use one of " + method_id_list() + ", original or exact";
  if (const std::string blocked = refusal(choice); !blocked.empty()) return name + " cannot run: " + blocked;
  select(slot, choice);
  return {};
}

void ComparisonSettings::set_pool(PoolMode mode) {
  if (mode != PoolMode::None) {
    if (const std::string problem = pool_problem(pipeline_.width(), pipeline_.height()); !problem.empty()) {
      messages_.say("2x2 pooling is not applied: " + problem, true);
      return;
    }
  }
  requested_.pool = mode;
  messages_.say(mode == PoolMode::None ? "pooling off"
                                       : std::string("2x2 pooling: ") + to_string(mode) +
                                             " (the pooled result is shown where the blurred one was)");
}

std::string ComparisonSettings::replace_failed(int slot, const std::string& why) {
  int& choice = slot == 0 ? requested_.method_a : requested_.method_b;
  const std::string failed = choices_.id(choice);
  const int replacement = slot == 0 ? choices_.cpu_replacement(choice) : kOriginalPicture;
  const std::string note = std::string(slot == 0 ? "A" : "B") + ": " + failed + " failed (" + why + "); it shows " +
                           choices_.label(replacement) + " instead";
  choice = replacement;
  applied_.method_a = requested_.method_a;
  applied_.method_b = requested_.method_b;
  return note;
}

}  // namespace gausslab
