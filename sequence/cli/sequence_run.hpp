#pragma once
// gausslab-sequence's run: read the frames, whiten them on the chosen engine, write the outputs,
// report progress, problems and per-stage times to `log`.
#include <ostream>

#include "sequence_options.hpp"

namespace gausslab {

// Returns the exit status (kSequenceExit*). Throws UsageError or SequenceInputError for what
// makes the run impossible before anything is written.
int run_sequence(const SequenceOptions& options, std::ostream& log);

}  // namespace gausslab
