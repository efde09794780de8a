#pragma once
// The comparison's work on worker threads besides the slots' CPU methods: the exact Gaussian of the
// picture (exact_reference.hpp), the numbers of A against B and of each against the exact Gaussian
// (comparison_numbers.hpp), and compare-all (compare_all.hpp). What is asked for follows the setting:
// the exact Gaussian starts when a slot shows it, in automated runs at once, and otherwise once a
// setting has stood for a moment (a slider drag does not start it at every step); the numbers are
// asked again whenever the slots' settings or the exact Gaussian's availability change.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "comparison/compare_all.hpp"
#include "comparison/comparison_numbers.hpp"
#include "comparison/exact_reference.hpp"

namespace gausslab {

class BackgroundWork {
 public:
  // gpu: GPU methods can run (the numbers and compare-all use the device); exact_at_once: automated
  // runs want the exact Gaussian from the start.
  BackgroundWork(bool gpu, bool exact_at_once);
  ~BackgroundWork();  // compare-all and the numbers stop before the exact Gaussian they read

  // A setting of a slot changed: the exact Gaussian waits until the new one has stood.
  void setting_changed() { setting_changed_at_ = std::chrono::steady_clock::now(); }
  // Asks for what the slots' settings `a` and `b` want (exact_in_slot: one of them shows the exact
  // Gaussian, which then starts at once); levels: the picture's own samples when its file holds
  // more than 8 bits, which the exact Gaussian and the numbers are then of; references: the
  // samples of the files in A and B's reference slots (null where none).
  void request(const ExactKey& key, const std::shared_ptr<const ImageRgba8>& picture, const SlotSetting& a,
               const SlotSetting& b, bool exact_in_slot, const std::shared_ptr<const PictureLevels>& levels = nullptr,
               const ReferenceLevels& references = {});
  // The numbers for the slots' current settings (unpooled), once worked out.
  std::optional<ComparisonNumbers> numbers(const SlotSetting& a, const SlotSetting& b) const;
  // Work asked for and not yet in: running, or the exact Gaussian wanted and not there (or not yet
  // in the numbers).
  bool busy(const ExactKey& key, bool exact_in_slot, bool measured) const;
  // "exact Gaussian 40 %; numbers: running fft on the float planes" (empty when idle).
  std::string progress(const ExactKey& key) const;
  // The device is unusable: the numbers and compare-all go on without it.
  void leave_the_gpu();
  void frame_drawn() { numbers_->frame_drawn(); }

  const ExactReference& exact() const { return exact_; }
  const NumbersWorker& numbers_worker() const { return *numbers_; }
  CompareAll& compare_all() { return *compare_all_; }
  const CompareAll& compare_all() const { return *compare_all_; }

 private:
  ExactReference exact_;
  std::unique_ptr<NumbersWorker> numbers_;
  std::unique_ptr<CompareAll> compare_all_;  // reads exact_
  std::optional<NumbersKey> requested_;      // the numbers last asked for
  std::chrono::steady_clock::time_point setting_changed_at_{};
  bool exact_at_once_;
};

}  // namespace gausslab
