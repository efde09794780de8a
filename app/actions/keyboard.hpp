#pragma once
// Small pure helpers behind the actions that step values (tested in tests/ui).
#include "gausslab/core/filter_params.hpp"
#include "gausslab/render/image_renderer.hpp"

namespace gausslab {

// sigma + delta, kept inside [kMinSigma, kMaxSigma] and rounded to 1e-9 so steps of 0.1 do not
// accumulate binary noise (2.1 stays 2.1 in file names).
double step_sigma(double sigma, double delta);

// offset + delta within +-kMaxDisplayOffset, rounded to 1e-9 (steps of 0.05 stay 0.05 apart).
double step_offset(double offset, double delta);

// The next display mode in the cycle A → B → split → difference → A.
CompareMode next_display(CompareMode mode);

}  // namespace gausslab
