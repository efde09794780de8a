#pragma once
// Runs gausslab-filter's jobs: load, filter with the chosen method, save with the input's channels.
#include <ostream>
#include <string>
#include <vector>

#include "filter_jobs.hpp"
#include "filter_options.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

// Exit statuses of gausslab-filter.
inline constexpr int kExitDone = 0;
inline constexpr int kExitFileFailed = 1;  // a file could not be read, filtered or written
inline constexpr int kExitUsage = 2;       // bad arguments: nothing was done

// Filters every job in order with `method`. A file that fails (unreadable, refused by the method
// at its size, a CUDA error, a write error) is reported on `log` and the next one is still done.
// Progress lines (one per file, with a bar) and a summary go to `log` unless options.quiet.
// Returns kExitDone, kExitFileFailed, or kExitUsage when the single input was refused by the
// method at its size (nothing was written).
int run_filter_jobs(const FilterOptions& options, Method& method, const std::vector<FileJob>& jobs, std::ostream& log);

// "[####......]": `done` of `total` as a bar of `width` characters.
std::string progress_bar(int done, int total, int width);

// "grey", "grey+alpha", "RGB", "RGBA".
const char* channels_name(int channels);

}  // namespace gausslab
