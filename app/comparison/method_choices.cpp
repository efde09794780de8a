#include "comparison/method_choices.hpp"

#include "comparison/slots.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

void MethodChoices::update(const FilterProblem& problem, OutputPath path, const std::string& gpu_refusal, Slot& asker) {
  problem_ = problem;
  path_ = path;
  choices_.clear();
  chosen_.assign(method_registry().size(), {});  // a new problem: auto chooses again
  chosen_on_samples_.assign(method_registry().size(), {});
  // The cpu path's registry has auto in its CPU form, which that path runs.
  const auto& registry = method_registry(path != OutputPath::Cpu);
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const MethodInfo& info = registry[i].info;
    MethodChoice choice{info.id, info.label, info.summary, info.accuracy, info.backend == Backend::Cuda, {}};
    if (choice.gpu && !gpu_refusal.empty())
      choice.blocked = gpu_refusal;
    else
      choice.blocked = asker.instance(static_cast<int>(i))->unsupported_reason(problem);
    choices_.push_back(std::move(choice));
  }
}

std::string MethodChoices::id(int choice) const {
  if (choice == kOriginalPicture) return "original";
  if (choice == kExactGaussian) return "exact";
  if (is_reference_file(choice)) return reference_id_[reference_file_slot(choice)];
  return choice >= 0 && choice < size() ? choices_[static_cast<std::size_t>(choice)].id : "?";
}

std::string MethodChoices::label(int choice) const {
  if (choice == kOriginalPicture) return "original picture";
  if (choice == kExactGaussian) return "exact Gaussian";
  if (is_reference_file(choice)) return reference_label_[reference_file_slot(choice)];
  if (const std::string runs = chosen(choice); !runs.empty())
    return id(choice) + " \u2192 " + runs + " (" + chosen_why(choice) + ")";
  return choice >= 0 && choice < size() ? choices_[static_cast<std::size_t>(choice)].label : "?";
}

void MethodChoices::set_chosen(int method, std::string chosen_id, std::string why) {
  if (method < 0 || method >= static_cast<int>(chosen_.size())) return;
  chosen_[static_cast<std::size_t>(method)] = {std::move(chosen_id), std::move(why), PixelFormat::Rgba8};
}

void MethodChoices::set_chosen_on_samples(int method, std::string chosen_id, std::string why, PixelFormat format) {
  if (method < 0 || method >= static_cast<int>(chosen_on_samples_.size())) return;
  chosen_on_samples_[static_cast<std::size_t>(method)] = {std::move(chosen_id), std::move(why), format};
}

const MethodChoices::Chosen* MethodChoices::chosen_entry(int method) const {
  if (method < 0 || method >= static_cast<int>(chosen_.size())) return nullptr;
  const Chosen& samples = chosen_on_samples_[static_cast<std::size_t>(method)];
  return samples.id.empty() ? &chosen_[static_cast<std::size_t>(method)] : &samples;
}

std::string MethodChoices::chosen(int method) const {
  const Chosen* c = chosen_entry(method);
  return c ? c->id : std::string();
}

std::string MethodChoices::chosen_for_slots(int method) const {
  if (method < 0 || method >= static_cast<int>(chosen_.size())) return {};
  return chosen_[static_cast<std::size_t>(method)].id;
}

std::string MethodChoices::chosen_why(int method) const {
  const Chosen* c = chosen_entry(method);
  return c ? c->why : std::string();
}

PixelFormat MethodChoices::chosen_format(int method) const {
  const Chosen* c = chosen_entry(method);
  return c ? c->format : PixelFormat::Rgba8;
}

std::string MethodChoices::id_with_choice(int choice) const {
  const std::string runs = chosen(choice);
  return runs.empty() ? id(choice) : id(choice) + " \u2192 " + runs;
}

void MethodChoices::set_reference(int slot, std::string id, std::string label) {
  reference_id_[slot] = std::move(id);
  reference_label_[slot] = std::move(label);
}

int MethodChoices::find(const std::string& id) const {
  for (std::size_t i = 0; i < choices_.size(); ++i)
    if (choices_[i].id == id) return static_cast<int>(i);
  return -1;
}

int MethodChoices::cpu_replacement(int failed) const {
  for (std::size_t i = 0; i < choices_.size(); ++i)
    if (choices_[i].id == "cpu_openmp" && choices_[i].blocked.empty()) return static_cast<int>(i);
  for (std::size_t i = 0; i < choices_.size(); ++i)
    if (!choices_[i].gpu && choices_[i].blocked.empty() && static_cast<int>(i) != failed) return static_cast<int>(i);
  return kOriginalPicture;
}

}  // namespace gausslab
