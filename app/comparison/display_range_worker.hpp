#pragma once
// The A, B and split views' range (DisplayTransform::range: the min/max or percentiles that map to
// the screen's black and white, render/display_range.hpp), worked out on a worker from the slots'
// stored values: the numbers' unrounded values (comparison_numbers.hpp: a float picture's samples
// as the methods stored them, an 8-bit picture's results before rounding), so that no frame waits
// for it (two 8192 x 8192 slots are 400 M values). Over both slots together, so that A, B, the
// split and the blink show a value as the same grey; over the channel view's values (r, g and b
// for rgb, the one channel, or the luminance). Until the numbers are in (and for a picture too
// large to measure, which gets none), the views keep the nominal range and the panel says why.
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "comparison/comparison_numbers.hpp"
#include "comparison/job_thread.hpp"
#include "gausslab/render/display_range.hpp"

namespace gausslab {

class DisplayRangeWorker {
 public:
  DisplayRangeWorker();
  ~DisplayRangeWorker();

  // Asks for the range `transform` wants over `numbers`' slot values (nothing when it asked for
  // the same before, or the range is nominal).
  void follow(const std::optional<ComparisonNumbers>& numbers, const DisplayTransform& transform);
  // What the views draw with: the range worked out for the last request (or for the slots' previous
  // values while their new ones are worked out), else the nominal one.
  DisplayRange shown() const;
  // The range asked for is not in yet (the numbers are, so it will be).
  bool pending() const;
  // Blocks until the range asked for is worked out (tests).
  void wait_idle() { thread_.wait_idle(); }
  // For the panel and the status bar: "[-0.6, 2.6]", "waiting for the numbers", "working it out",
  // with the NaN and infinities left out, and "constant" when the values do not spread.
  std::string note() const;

 private:
  // What a range is of: the slots' settings (the same settings hold the same values) and the
  // transform's choice; plain values, so that a finished range never keeps the slots' values alive.
  struct Choice {
    bool measured = false;  // the numbers were in (else nothing to work out yet)
    SlotSetting a, b;
    ChannelView channel = ChannelView::Rgb;
    RangeMode mode = RangeMode::Nominal;
    double low_percentile = 0, high_percentile = 0;
    bool same_display(const Choice& o) const {
      return channel == o.channel && mode == o.mode && low_percentile == o.low_percentile &&
             high_percentile == o.high_percentile;
    }
    bool operator==(const Choice& o) const { return measured == o.measured && a == o.a && b == o.b && same_display(o); }
  };
  struct Job {
    Choice choice;
    std::shared_ptr<const SlotValues> a, b;
  };
  static ValueRange compute(const Job& job, const std::atomic<bool>& superseded);

  Choice asked_;
  mutable std::mutex mutex_;
  std::optional<std::pair<Choice, ValueRange>> done_;  // the worker's latest
  JobThread<Job> thread_;  // last: stops before what it writes
};

}  // namespace gausslab
