#pragma once
// From gausslab-filter's options to a checked list of (input, output) pairs: everything that can be
// refused without reading an image is refused here, before any work.
#include <memory>
#include <string>
#include <vector>

#include "filter_options.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct FileJob {
  std::string input;
  std::string output;
};

// The method named by --method, created and checked: throws UsageError for an unknown id (listing
// the registered ids), a method that cannot run on this machine (no CUDA device ...), or one that
// refuses the parameters (its unsupported_reason, asked for a 64×64 RGBA8 image, a size every
// method must accept).
std::unique_ptr<Method> create_checked_method(const FilterOptions& options);

// DIR/<input's file name without extension><extension>.
std::string batch_output_path(const std::string& input, const std::string& out_dir, const std::string& extension);

// One job per input. Throws UsageError for a bad output name or type, an output folder that does
// not exist, an existing output without --overwrite, or two inputs that would write one output.
// Inputs are not opened here: an unreadable input is that file's failure, not a usage error.
std::vector<FileJob> plan_filter_jobs(const FilterOptions& options);

}  // namespace gausslab
