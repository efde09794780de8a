#pragma once
// gausslab-filter's 1D signals: a .npy array filtered along its one axis (FilterAxes::RowsOnly),
// as scipy.ndimage.gaussian_filter1d does, and written back in its own dtype.
#include <cstddef>
#include <ostream>
#include <vector>

#include "file_result.hpp"
#include "filter_options.hpp"
#include "gausslab/batch/batch_engine.hpp"
#include "gausslab/batch/default_method.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

// The problem a signal of `length` samples poses: a 1×length F32 image filtered along x only.
FilterProblem signal_problem(std::size_t length, const FilterParams& params);

// The method for signals without --method: tiled_1d where a CUDA device can run it and it takes the
// kernel, else cpu_openmp.
MethodChoice choose_signal_method(bool cuda_available, const FilterParams& params);

// Reads job.input (.npy), filters it with `method` in float32 (float64 samples are converted and
// the results widened back), writes job.output (.npy, the input's dtype). Never throws: a failure is
// the result's status and message, naming the file.
FileResult filter_signal_file(const FilterOptions& options, Method& method, const BatchJob& job);

struct SignalRunSummary {
  int done = 0, failed = 0, refused = 0;
};

// Filters every signal job in order with the method `choice` names (one instance), printing a line
// per signal unless options.quiet, and every failure (naming its file) always.
SignalRunSummary run_signal_jobs(const FilterOptions& options, const MethodChoice& choice,
                                 const std::vector<BatchJob>& jobs, std::ostream& log);

}  // namespace gausslab
