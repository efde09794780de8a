#pragma once
// The live error of slot A against the exact Gaussian: a crop of A's result read back without
// waiting (ResultCrop), measured on a worker thread (AccuracyProbe), shown only while it belongs
// to the setting A shows. Which setting a crop or a measurement belongs to is kept with it, so the
// monitor never compares counters.
#include <memory>
#include <optional>

#include "accuracy_probe.hpp"
#include "result_crop.hpp"
#include "slots.hpp"

namespace gausslab {

class AccuracyMonitor {
 public:
  // True when A's next run should read back a crop for `setting` (none measured or on its way).
  bool wants_crop(const SlotSetting& setting) const;
  // The hook for A's next run; remembers which setting the crop belongs to.
  ResultPipeline::ResultHook crop_hook(const SlotSetting& setting, int width, int height);
  // Hands a finished crop to the probe if it still belongs to `current` (wait: block until the
  // crop's copy is done, end of an automated run). Throws CudaError when the copy failed.
  void collect(const SlotSetting& current, const std::shared_ptr<const ImageRgba8>& picture,
               const AccuracyBound& bound, bool wait);
  // The measurement of `setting`, once finished.
  std::optional<AccuracyResult> result_for(const SlotSetting& setting) const;
  // A crop of the old picture is of no use.
  void forget_crop() { crop_.discard(); }
  void wait_idle() { probe_.wait_idle(); }

 private:
  ResultCrop crop_;
  AccuracyProbe probe_;
  std::optional<SlotSetting> crop_setting_;  // of the crop on its way
  std::optional<SlotSetting> submitted_;     // the setting of the latest job given to the probe
  std::uint64_t submitted_job_ = 0;          // its job number (AccuracyResult::generation)
};

}  // namespace gausslab
