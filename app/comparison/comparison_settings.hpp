#pragma once
// What the comparison's slots should show and with which parameters: the setting asked for (the
// panels, the keys and the script edit it; it is applied at the next frame's start, so that a
// script's steps in one frame see each other's effect) and the setting applied; the methods' list
// for the picture and parameters applied; the checks that refuse a method that cannot run the
// setting asked for, or a pooling the picture's size does not allow; the replacement of a method
// that failed.
#include <string>

#include "comparison/method_choices.hpp"
#include "comparison/status_messages.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

class ResultPipeline;
class Slot;

class ComparisonSettings {
 public:
  // pipeline: the picture's size and whether GPU methods run; asker: the slot whose method
  // instances answer what they can run; messages: where refusals are said.
  ComparisonSettings(const FilterState& first, const ResultPipeline& pipeline, Slot& asker, StatusMessages& messages);

  FilterState& requested() { return requested_; }
  const FilterState& requested() const { return requested_; }
  const FilterState& applied() const { return applied_; }
  // The setting asked for becomes the applied one.
  void apply() { applied_ = requested_; }
  // The problem of the applied setting (the picture processed, RGBA8).
  FilterProblem problem() const;

  const MethodChoices& choices() const { return choices_; }
  // A slot's reference file as the lists, labels and title name it (MethodChoices::set_reference).
  void set_reference_names(int slot, std::string id, std::string label) {
    choices_.set_reference(slot, std::move(id), std::move(label));
  }
  // What an auto entry runs (MethodChoices::set_chosen).
  void set_chosen(int method, std::string chosen_id, std::string why) {
    choices_.set_chosen(method, std::move(chosen_id), std::move(why));
  }
  // What an auto entry ran on the picture's samples (MethodChoices::set_chosen_on_samples).
  void set_chosen_on_samples(int method, std::string chosen_id, std::string why, PixelFormat format) {
    choices_.set_chosen_on_samples(method, std::move(chosen_id), std::move(why), format);
  }
  // Asks every method again about problem() on the pipeline's path.
  void update_choices();

  // Slot `slot` (0: A, 1: B) shows `choice` (a registry index, kOriginalPicture or kExactGaussian)
  // from the next frame, unless the method cannot run the setting asked for: then the user is told.
  void select(int slot, int choice);
  // The same by name ("fft", "original", "exact"); returns why not ("" when selected).
  std::string select_by_name(int slot, const std::string& name);
  // 2x2 pooling on (max or average) or off, unless the picture's size does not allow it (said).
  void set_pool(PoolMode mode);
  // Slot `slot`'s method failed: A goes on with a CPU method that can run, B with the original
  // picture, asked for and applied at once. Returns "A: fft failed (WHY); it shows ... instead".
  std::string replace_failed(int slot, const std::string& why);

 private:
  // Why the method `choice` cannot run at the setting asked for ("" when it can).
  std::string refusal(int choice) const;

  FilterState requested_, applied_;
  MethodChoices choices_;
  const ResultPipeline& pipeline_;
  Slot& asker_;
  StatusMessages& messages_;
};

}  // namespace gausslab
