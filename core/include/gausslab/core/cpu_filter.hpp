#pragma once
// The CPU baselines: the same separable float32 convolution on one thread or on all (OpenMP).
#include <string>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"

namespace gausslab {

enum class CpuThreading { Single, OpenMP };

// Filters src into dst (host memory, same size and format; they must not overlap). Row pass then
// column pass (the row pass alone for FilterAxes::RowsOnly) in float32 with the border rule applied exactly; RGBA8 results are rounded with
// to_unorm8. Throws std::invalid_argument on mismatched views or invalid parameters.
void cpu_gaussian_filter(const ConstImageView& src, const ImageView& dst, const FilterParams& params,
                         CpuThreading threading);

// Multiply-adds the CPU filter needs for this problem (both passes, all channels), to refuse work
// that would take minutes.
double cpu_filter_cost(const FilterProblem& problem);

// Threads the OpenMP variant uses here.
int cpu_thread_count();

}  // namespace gausslab
