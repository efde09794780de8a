#include "comparison/display_range_worker.hpp"

#include <cstdio>
#include <vector>

#include "comparison/background_threads.hpp"

namespace gausslab {

DisplayRangeWorker::DisplayRangeWorker()
    : thread_([this](Job& job, const std::atomic<bool>& superseded) {
        use_background_cpu_share(true);  // no CUDA here: nice 10 is safe
        const ValueRange range = compute(job, superseded);
        if (superseded) return;
        std::lock_guard<std::mutex> lock(mutex_);
        done_.emplace(job.choice, range);
      }) {}

DisplayRangeWorker::~DisplayRangeWorker() = default;

ValueRange DisplayRangeWorker::compute(const Job& job, const std::atomic<bool>& superseded) {
  const ChannelView channel = job.choice.channel;
  const ValueBlocks blocks = [&job, channel, &superseded](const std::function<void(const float*, std::size_t)>& visit) {
    std::vector<float> row;
    for (const SlotValues* values : {job.a.get(), job.b.get()}) {
      if (!values) continue;
      const DifferenceOperand& v = values->operand;
      for (int y = 0; y < values->height && !superseded; ++y) {
        row.clear();
        for (int x = 0; x < values->width; ++x) {
          // Levels to display units (the nominal [0, 1] is levels 0..255).
          const auto at = [&](int c) { return static_cast<float>(v.sample(x, y, c) / 255.0); };
          switch (channel) {
            case ChannelView::Rgb: row.insert(row.end(), {at(0), at(1), at(2)}); break;
            case ChannelView::Luminance:
              row.push_back(kLuminanceWeights[0] * at(0) + kLuminanceWeights[1] * at(1) + kLuminanceWeights[2] * at(2));
              break;
            default: row.push_back(at(static_cast<int>(channel) - 1)); break;
          }
        }
        visit(row.data(), row.size());
      }
    }
  };
  return value_range(blocks, job.choice.mode, job.choice.low_percentile, job.choice.high_percentile);
}

void DisplayRangeWorker::follow(const std::optional<ComparisonNumbers>& numbers, const DisplayTransform& transform) {
  Job job;
  Choice& c = job.choice;
  c.mode = transform.range;
  if (c.mode != RangeMode::Nominal) {
    c.channel = transform.channel;
    if (c.mode == RangeMode::Percentiles) {
      c.low_percentile = transform.low_percentile;
      c.high_percentile = transform.high_percentile;
    }
    if (numbers && (numbers->values_a || numbers->values_b)) {
      c.measured = true;
      c.a = numbers->key.a;
      c.b = numbers->key.b;
      job.a = numbers->values_a;
      job.b = numbers->values_b;
    }
  }
  if (c == asked_) return;
  asked_ = c;
  if (c.mode != RangeMode::Nominal && c.measured) thread_.submit(std::move(job));
}

DisplayRange DisplayRangeWorker::shown() const {
  std::lock_guard<std::mutex> lock(mutex_);
  // The range of the slots' previous values while their new ones are worked out (a sigma step
  // would flash the nominal range otherwise), when it was asked for alike.
  if (asked_.mode == RangeMode::Nominal || !done_ || !done_->first.same_display(asked_)) return DisplayRange{};
  return done_->second.range;
}

bool DisplayRangeWorker::pending() const {
  if (asked_.mode == RangeMode::Nominal || !asked_.measured) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return !done_ || !(done_->first == asked_);
}

std::string DisplayRangeWorker::note() const {
  if (asked_.mode == RangeMode::Nominal) return "[0, 1]";
  if (!asked_.measured) return "nominal [0, 1] until the numbers are in";
  std::lock_guard<std::mutex> lock(mutex_);
  if (!done_ || !done_->first.same_display(asked_)) return "working it out";
  const ValueRange& r = done_->second;
  std::string out;
  if (r.finite == 0) {
    out = "no finite value: nominal [0, 1]";
  } else {
    char text[160];
    std::snprintf(text, sizeof text, "[%.6g, %.6g]", r.range.low, r.range.high);
    out = text;
    if (r.widened) out += " (constant)";
    if (r.skipped > 0) out += " (" + std::to_string(r.skipped) + " NaN or infinite left out)";
  }
  if (!(done_->first == asked_)) out += " (updating)";
  return out;
}

}  // namespace gausslab
