#pragma once
// Everything the comparison keeps for one of its two slots, A or B: what it shows with its method
// instances and stage timer (Slot), its slow GPU runs in slices (SlotSlicer), a host result on its
// way to its texture, a save that waits for its result, whether a view shows it, and how far the
// timing history has read its timer. The pipeline's slot `index` is its texture.
#include <optional>

#include "comparison/slot_slicer.hpp"
#include "comparison/slots.hpp"

namespace gausslab {

struct SlotLane {
  SlotLane(int lane_index, int history, SliceLedger& ledger)
      : index(lane_index), slot(history), slicer(lane_index, slot, ledger) {}
  SlotLane(const SlotLane&) = delete;
  SlotLane& operator=(const SlotLane&) = delete;

  const char* name() const { return index == 0 ? "A" : "B"; }

  const int index;  // 0: A, 1: B
  Slot slot;
  SlotSlicer slicer;  // after slot: it uses the slot's instances
  std::optional<SlotSetting> uploading;  // the setting of a host image on its way to the texture
  bool shown = true;          // a view shows it (B is prepared and run only then)
  bool pending_save = false;  // a save asked for while its result was on its way
  int seen_completed = 0;     // its timer's completed frames already in the timing history
};

}  // namespace gausslab
