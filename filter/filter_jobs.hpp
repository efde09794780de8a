#pragma once
// From gausslab-filter's options to a checked list of jobs (input, output): everything that can be
// refused without reading an image is refused here, before any work.
#include <string>
#include <vector>

#include "filter_options.hpp"
#include "gausslab/batch/batch_engine.hpp"
#include "gausslab/batch/default_method.hpp"
#include "gausslab/batch/inputs.hpp"

namespace gausslab {

// The method: --method's, checked, or the default rule's (choose_default_method). Throws
// UsageError for an unknown id (listing the registered ids), a method that cannot run on this
// machine (no CUDA device ...), or one that refuses the parameters (its unsupported_reason, asked
// for a 64×64 RGBA8 image, a size every method must accept).
MethodChoice resolve_method(const FilterOptions& options);

// The method for the .npy signals among the inputs: --method's, or choose_signal_method's; checked
// like resolve_method, with a signal as the probe (methods that filter only in 2D refuse it).
MethodChoice resolve_signal_method(const FilterOptions& options);

// DIR/<relative stem><extension>: "out" + "trip/cat" + ".png" gives "out/trip/cat.png".
std::string batch_output_path(const std::string& relative_stem, const std::string& out_dir,
                              const std::string& extension);

// One job per input. Throws UsageError for a bad output name or type, an --out-dir that is a file,
// an --out-dir that is an input folder (or, with --recursive, inside one),
// an existing output without --overwrite, two inputs that would write one output, or an output
// that would replace its own input. Inputs are not opened here: an unreadable input is that file's
// failure, not a usage error. Creates nothing.
std::vector<BatchJob> plan_filter_jobs(const FilterOptions& options, const std::vector<InputFile>& inputs);

// Creates --out-dir and the subfolders a recursive batch's outputs need. Throws UsageError when a
// folder cannot be made.
void create_output_folders(const FilterOptions& options, const std::vector<BatchJob>& jobs);

}  // namespace gausslab
