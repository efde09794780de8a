#pragma once
// What the sequence mode takes from the command line: the synthetic sky's spec and the whitening
// settings (plan_sequence_startup in startup.hpp checks them before the first frame).
#include <string>

#include "gausslab/sequence/sequence_player.hpp"
#include "gausslab/sequence/synthetic.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

// --size WxH (default 512x512), 120 frames, seed 1, the generator's other defaults.
SyntheticSpec sequence_sky(const ViewerOptions& options);
// --history, --degree, --gamma, and --method/--sigma as the pre-filter.
PlayerSettings sequence_settings(const ViewerOptions& options);
// "" while a history of `history` frames fills with distinct frames of a sequence of `frame_count`
// (or the count is unknown: 0); else what goes wrong and what to do, as gausslab-sequence says: with
// 20 frames of history and 12 frames, looping refills the history with the same frames and the
// whitened frame B goes flat.
std::string history_warning(int history, int frame_count);

}  // namespace gausslab
