#pragma once
// What a slot of the comparison shows (a method, the original picture or the exact Gaussian, for one
// picture and one set of parameters, pooled or not): the slots, their workers and the numbers name
// their work by it.
#include <cstdint>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/pooling.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab {

// What a slot shows. `picture` names the picture as processed: the comparison gives every load and
// every resampling a new number, so a result of an older picture never counts as current.
struct SlotSetting {
  std::uint64_t picture = 0;
  int method = kOriginalPicture;  // registry index, or kOriginalPicture
  FilterParams params;
  PoolMode pool = PoolMode::None;  // the result shown is pooled 2x2
  std::uint64_t reference = 0;     // a reference file's load number (ReferenceSlot::number), else 0

  friend bool operator==(const SlotSetting& x, const SlotSetting& y) {
    return x.picture == y.picture && x.method == y.method && x.params == y.params && x.pool == y.pool &&
           x.reference == y.reference;
  }
  // The same setting before pooling (what the numbers measure).
  SlotSetting unpooled() const { return SlotSetting{picture, method, params, PoolMode::None, reference}; }
  friend bool operator!=(const SlotSetting& x, const SlotSetting& y) { return !(x == y); }
};

}  // namespace gausslab
