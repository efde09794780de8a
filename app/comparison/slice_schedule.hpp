#pragma once
// A slot's sliced GPU run (render/slicing.hpp, render/sliced_run.hpp) as the frames see it: the
// setting it computes, how many steps there are (tiles, or parts of tiles: SlicedRun::steps) and
// how many are enqueued, whether it is the probe
// of a method never measured. A setting change drops it (the next frame starts a new one); so does
// a finished run (in continuous mode the next run starts in the next frame).
#include <cstdint>
#include <string>

#include "comparison/slot_setting.hpp"

namespace gausslab {

class SliceSchedule {
 public:
  void start(const SlotSetting& setting, int steps, int steps_per_tile, bool probe, bool row_bands, std::uint64_t run) {
    setting_ = setting;
    steps_ = steps;
    steps_per_tile_ = steps_per_tile < 1 ? 1 : steps_per_tile;
    next_ = 0;
    probe_ = probe;
    row_bands_ = row_bands;
    run_ = run;
    active_ = true;
  }
  // Drops the run when the slot now wants another setting; true when it dropped one.
  bool drop_if_changed(const SlotSetting& wanted) {
    if (!active_ || setting_ == wanted) return false;
    active_ = false;
    return true;
  }
  void drop() { active_ = false; }
  bool active() const { return active_; }
  bool probe() const { return probe_; }
  std::uint64_t run() const { return run_; }
  int next() const { return next_; }
  int steps() const { return steps_; }
  int remaining() const { return steps_ - next_; }
  void advance(int count) { next_ = next_ + count > steps_ ? steps_ : next_ + count; }
  bool all_enqueued() const { return next_ >= steps_; }
  // "naive_2d: band 7 of 17" (the band or tile enqueued last; "shared_2d: tile 3 of 20, part 2 of 5"
  // when tiles go in parts), or "naive_2d: measuring its speed" for a probe.
  std::string progress(const std::string& method_id) const {
    if (!active_) return {};
    if (probe_) return method_id + ": measuring its speed (step " + std::to_string(next_) + ")";
    const int tiles = steps_ / steps_per_tile_;
    if (steps_per_tile_ == 1)
      return method_id + ": " + (row_bands_ ? "band " : "tile ") + std::to_string(next_) + " of " + std::to_string(tiles);
    // The step enqueued last: tile (next - 1) / steps_per_tile, part (next - 1) % steps_per_tile, counted from 1.
    const int last = next_ > 0 ? next_ - 1 : 0;
    return method_id + ": " + (row_bands_ ? "band " : "tile ") + std::to_string(last / steps_per_tile_ + 1) + " of " +
           std::to_string(tiles) + ", part " + std::to_string(last % steps_per_tile_ + 1) + " of " +
           std::to_string(steps_per_tile_);
  }

 private:
  SlotSetting setting_;
  int steps_ = 0, steps_per_tile_ = 1, next_ = 0;
  bool probe_ = false, row_bands_ = true, active_ = false;
  std::uint64_t run_ = 0;
};

}  // namespace gausslab
