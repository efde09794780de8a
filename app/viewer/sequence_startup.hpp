#pragma once
// What the sequence mode takes from the command line: the synthetic sky's spec and the whitening
// settings (plan_sequence_startup in startup.hpp checks them before the first frame).
#include "gausslab/sequence/sequence_player.hpp"
#include "gausslab/sequence/synthetic.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

// --size WxH (default 512x512), 120 frames, seed 1, the generator's other defaults.
SyntheticSpec sequence_sky(const ViewerOptions& options);
// --history, --degree, --gamma, and --method/--sigma as the pre-filter.
PlayerSettings sequence_settings(const ViewerOptions& options);

}  // namespace gausslab
