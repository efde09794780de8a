#include "comparison/background_work.hpp"

namespace gausslab {

BackgroundWork::BackgroundWork(bool gpu, bool exact_at_once)
    : numbers_(std::make_unique<NumbersWorker>(gpu)),
      compare_all_(std::make_unique<CompareAll>(gpu, exact_)),
      exact_at_once_(exact_at_once) {}

BackgroundWork::~BackgroundWork() {
  compare_all_.reset();
  numbers_.reset();
}

void BackgroundWork::request(const ExactKey& key, const std::shared_ptr<const ImageRgba8>& picture,
                             const SlotSetting& a, const SlotSetting& b, bool exact_in_slot,
                             const std::shared_ptr<const PictureLevels>& levels, const ReferenceLevels& references) {
  const bool stood = std::chrono::steady_clock::now() - setting_changed_at_ > std::chrono::milliseconds(400);
  if (exact_in_slot || exact_at_once_ || stood) exact_.request(key, picture, levels);
  std::shared_ptr<const ExactResult> exact = exact_.find(key);
  const NumbersKey wanted{a.unpooled(), b.unpooled(), exact != nullptr};
  if (requested_ != wanted) {
    numbers_->submit(wanted, picture, exact, levels, references);
    requested_ = wanted;
  }
}

std::optional<ComparisonNumbers> BackgroundWork::numbers(const SlotSetting& a, const SlotSetting& b) const {
  std::optional<ComparisonNumbers> numbers = numbers_->latest();
  if (!numbers || numbers->key.a != a.unpooled() || numbers->key.b != b.unpooled()) return std::nullopt;
  return numbers;
}

bool BackgroundWork::busy(const ExactKey& key, bool exact_in_slot, bool measured) const {
  if (exact_.busy() || numbers_->busy() || compare_all_->busy()) return true;
  if (!measured) return false;
  // The exact Gaussian wanted but not there yet, or there but not yet in the numbers.
  const bool has_exact = exact_.find(key) != nullptr;
  if ((exact_at_once_ || exact_in_slot) && !has_exact && exact_.error().empty()) return true;
  if (!requested_ || requested_->with_exact != has_exact) return true;
  std::optional<ComparisonNumbers> numbers = numbers_->latest();
  return !numbers || requested_ != numbers->key;
}

std::string BackgroundWork::progress(const ExactKey& key) const {
  std::string text;
  if (std::optional<double> p = exact_.progress(key))
    text += "exact Gaussian " + std::to_string(static_cast<int>(*p * 100)) + " %";
  if (const std::string activity = numbers_->activity(); !activity.empty())
    text += std::string(text.empty() ? "" : "; ") + "numbers: " + activity;
  return text;
}

void BackgroundWork::leave_the_gpu() {
  numbers_ = std::make_unique<NumbersWorker>(false);
  requested_.reset();
  compare_all_ = std::make_unique<CompareAll>(false, exact_);
}

}  // namespace gausslab
