#include "gausslab/batch/stage_stats.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace gausslab {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Length of the union of the intervals.
double union_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, start = 0, end = -1;
  bool open = false;
  for (const auto& [a, b] : intervals) {
    if (!open || a > end) {
      if (open) total += end - start;
      start = a;
      end = b;
      open = true;
    } else {
      end = std::max(end, b);
    }
  }
  if (open) total += end - start;
  return total;
}

}  // namespace

const char* to_string(Stage stage) {
  static const char* const names[] = {"read", "decode", "upload", "filter", "download", "encode", "write", "sync"};
  return names[static_cast<int>(stage)];
}

StageTotals& StageTotals::operator+=(const StageTotals& other) {
  for (int s = 0; s < kStageCount; ++s) {
    sum_ms[s] += other.sum_ms[s];
    busy_ms[s] += other.busy_ms[s];
    count[s] += other.count[s];
  }
  return *this;
}

StageRecorder::StageRecorder() : origin_s_(steady_seconds()) {}

double StageRecorder::now_s() const { return steady_seconds() - origin_s_; }

void StageRecorder::add(Stage stage, double start_s, double end_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  intervals_[static_cast<int>(stage)].emplace_back(start_s, std::max(start_s, end_s));
}

StageTotals StageRecorder::totals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  StageTotals totals;
  for (int s = 0; s < kStageCount; ++s) {
    for (const auto& [a, b] : intervals_[s]) totals.sum_ms[s] += (b - a) * 1000.0;
    totals.busy_ms[s] = union_length(intervals_[s]) * 1000.0;
    totals.count[s] = static_cast<int>(intervals_[s].size());
  }
  return totals;
}

BoundReport find_bound(const StageTotals& totals, const std::vector<Stage>& cpu_stages, int cpu_threads, int images) {
  BoundReport bound;
  double pool_ms = 0;
  for (Stage stage : cpu_stages) pool_ms += totals.sum_ms[static_cast<int>(stage)];
  const double pool_occupancy = pool_ms / std::max(1, cpu_threads);
  if (!cpu_stages.empty()) {
    std::vector<Stage> order = cpu_stages;
    std::sort(order.begin(), order.end(), [&](Stage a, Stage b) {
      return totals.sum_ms[static_cast<int>(a)] > totals.sum_ms[static_cast<int>(b)];
    });
    std::string parts;
    for (Stage stage : order) {
      if (pool_ms <= 0 || totals.sum_ms[static_cast<int>(stage)] <= 0) break;
      char text[48];
      std::snprintf(text, sizeof text, "%s%s %.0f %%", parts.empty() ? "" : ", ", to_string(stage),
                    100.0 * totals.sum_ms[static_cast<int>(stage)] / pool_ms);
      parts += text;
    }
    bound.name = "CPU pool of " + std::to_string(std::max(1, cpu_threads)) + " thread" + (cpu_threads > 1 ? "s" : "") +
                 " (" + parts + ")";
    bound.occupancy_ms = pool_occupancy;
  }
  for (int s = 0; s < kStageCount; ++s) {
    const Stage stage = static_cast<Stage>(s);
    if (std::find(cpu_stages.begin(), cpu_stages.end(), stage) != cpu_stages.end()) continue;
    if (totals.count[s] == 0) continue;
    if (totals.busy_ms[s] > bound.occupancy_ms) {
      bound.name = to_string(stage);
      bound.occupancy_ms = totals.busy_ms[s];
    }
  }
  bound.per_image_ms = bound.occupancy_ms / std::max(1, images);
  return bound;
}

}  // namespace gausslab
