#pragma once
// The CPU baselines: the same float32 filter on one thread or on all (OpenMP), for the Gaussian and
// every custom kernel (FilterParams::kernel; the name says "gaussian" from before custom kernels).
#include <string>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

enum class CpuThreading { Single, OpenMP };

// Filters src into dst (host memory, same size and format; they must not overlap) in float32 with the
// border rule applied exactly: a separable kernel (kernel_taps) as a row pass then a column pass
// (the row pass alone for FilterAxes::RowsOnly), a 2D matrix as one direct pass; a normalised
// kernel's sums divided by its sum; integer results stored by params.rounding (half up by default)
// and saturated. Throws std::invalid_argument on mismatched views or invalid parameters.
void cpu_gaussian_filter(const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                         CpuThreading threading);

// Multiply-adds the CPU filter needs for this problem (both passes or the 2D pass, all channels), to
// refuse work that would take minutes.
double cpu_filter_cost(const FilterProblem& problem);

// Threads the OpenMP variant uses here.
int cpu_thread_count();

}  // namespace gausslab
