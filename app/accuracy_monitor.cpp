#include "accuracy_monitor.hpp"

namespace gausslab {

bool AccuracyMonitor::wants_crop(const SlotSetting& setting) const {
  return !crop_setting_ && submitted_ != setting;
}

ResultPipeline::ResultHook AccuracyMonitor::crop_hook(const SlotSetting& setting, int width, int height) {
  crop_setting_ = setting;
  return crop_.hook(accuracy_crop(width, height));
}

void AccuracyMonitor::collect(const SlotSetting& current, const std::shared_ptr<const ImageRgba8>& picture,
                              const AccuracyBound& bound, bool wait) {
  if (!crop_setting_) return;
  std::optional<ImageRgba8> crop;
  try {
    crop = crop_.take(wait);
  } catch (...) {
    crop_setting_.reset();
    throw;
  }
  if (!crop) return;
  const SlotSetting cropped = *crop_setting_;
  crop_setting_.reset();
  if (cropped != current || !picture) return;  // the setting changed while the crop was on its way
  AccuracyJob job;
  job.generation = ++submitted_job_;
  job.source = picture;
  job.params = current.params;
  job.region = accuracy_crop(picture->width(), picture->height());
  job.crop = std::move(*crop);
  job.bound = bound;
  probe_.submit(std::move(job));
  submitted_ = current;
}

std::optional<AccuracyResult> AccuracyMonitor::result_for(const SlotSetting& setting) const {
  std::optional<AccuracyResult> latest = probe_.latest();
  if (!latest || submitted_ != setting || latest->generation != submitted_job_) return std::nullopt;
  return latest;
}

}  // namespace gausslab
