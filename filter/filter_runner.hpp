#pragma once
// Runs gausslab-filter: rank 0 plans the jobs (inputs expanded, outputs checked, the output folder
// made) and sends them to the other ranks; every rank runs its part of the batch; rank 0 prints the
// progress and the summary.
#include <istream>
#include <ostream>

#include "filter_options.hpp"
#include "gausslab/batch/mpi_session.hpp"

namespace gausslab {

// Exit statuses of gausslab-filter.
inline constexpr int kExitDone = 0;
inline constexpr int kExitFileFailed = 1;  // a file could not be read, filtered or written
inline constexpr int kExitUsage = 2;       // bad arguments: nothing was done

// Filters what `options` asks for. `standard_input` serves --from-list -. Usage errors found while
// planning are printed by rank 0 (with the usage hint) and give kExitUsage on every rank. Returns
// kExitDone, kExitFileFailed, or kExitUsage when the single input was refused by the method at its
// size (nothing was written).
int run_filter(const FilterOptions& options, MpiSession& mpi, std::istream& standard_input, std::ostream& log);

}  // namespace gausslab
