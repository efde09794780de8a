#pragma once
// The method used when --method is not given: the fastest that runs here within its accuracy
// bound, by a fixed rule read from the H100 measurements (README, "Crossovers"). One function, so
// that a measured choice ("auto") can replace the rule without touching its callers.
#include <string>

#include "gausslab/core/filter_params.hpp"

namespace gausslab {

struct MethodChoice {
  std::string id;
  std::string reason;  // one line for the log: why this method
};

// The rule, in order:
//  - no CUDA device: cpu_openmp (all cores; the pool's other threads decode and encode meanwhile);
//  - sigma < 8 and separable_fused accepts the radius (<= 64): separable_fused (fastest up to
//    sigma 6 on the H100, one read and one write per pixel);
//  - sigma < 16: separable_shared (fastest from sigma 8 to 12);
//  - sigma >= 16: recursive (constant time in sigma, fastest from 16 on), where it accepts the
//    truncate (it refuses one that drops over 1 % of the Gaussian's mass); else separable_shared.
// `cuda_available` is whether a CUDA device can run the GPU methods.
MethodChoice choose_default_method(const FilterParams& params, bool cuda_available);

}  // namespace gausslab
