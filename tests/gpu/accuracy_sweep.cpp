#include "accuracy_sweep.hpp"

#include <iostream>
#include <map>
#include <sstream>

#include "gausslab/cuda/cuda_check.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab::gpu_test {

// The axes a case is swept along: both, and for a one-row case also along x only where the method
// filters 1D signals (tiled_1d's only problems, in float32; separable_shared's row pass, which also
// takes the other formats as float planes and refuses RGBA images run as they are).
std::vector<FilterAxes> swept_axes(const Method& method, const TestImage& src) {
  if (method.info().filters_along_x_only && src.height() == 1 &&
      (src.format() == PixelFormat::F32 || channel_count(src.format()) < 4))
    return {FilterAxes::Both, FilterAxes::RowsOnly};
  return {FilterAxes::Both};
}

SweepCounts sweep_case(Method& method, const ImageCase& image_case, cudaStream_t stream) {
  const std::string& method_id = method.info().id;
  const TestImage& src = image_for(image_case);
  TestImage result(src.width(), src.height(), src.format());
  SweepCounts counts;
  std::map<std::string, std::string> refused;  // reason -> "sigma 33 (wrap), sigma 200"

  for (const double sigma : image_case.sigmas) {
    std::map<std::string, std::vector<std::string>> refused_borders;
    for (const BorderMode border : kAllBorderModes) {
      for (const FilterAxes axes : swept_axes(method, src)) {
        FilterParams params;
        params.sigma = sigma;
        params.border = border;
        params.axes = axes;
        const FilterProblem problem{src.width(), src.height(), src.format(), params};
        const std::string context = where(method_id, problem, image_case.name);

        if (const std::string reason = method.unsupported_reason(problem); !reason.empty()) {
          ++counts.refused;
          expect_refused_up_front(method, problem, reason, context);
          refused_borders[reason].push_back(to_string(border));
          record(method_id, image_case.name, problem, Outcome::Refused, reason);
          continue;
        }
        ++counts.ran;
        RunOptions options;
        options.stream = stream;
        options.poison_output = true;  // an unwritten pixel shows as NaN (f32) or 255 (rgba8)
        try {
          run_on_host(method, src.view(), result.view(), params, options);
        } catch (const std::exception& e) {
          ++counts.failed;
          ADD_FAILURE() << context << ": the run threw: " << e.what();
          record(method_id, image_case.name, problem, Outcome::Failed, std::string("threw: ") + e.what());
          if (dynamic_cast<const CudaError*>(&e)) note_cuda_failure(context, e.what());
          if (!skip_reason().empty()) return counts;  // the context is gone; later tests say why
          continue;
        }
        const AccuracyBound bound = method.accuracy_bound(problem);
        const Comparison comparison = compare_with_reference_of(image_case.name, src.view(), result.view(), params, bound);
        if (!comparison.passed()) ++counts.failed;
        EXPECT_TRUE(comparison.passed()) << context << ": " << comparison.describe();
        record(method_id, image_case.name, problem, comparison.passed() ? Outcome::Passed : Outcome::Failed,
               comparison.describe(), &comparison);
      }
    }
    for (const auto& [reason, borders] : refused_borders) {
      std::ostringstream text;
      text << "sigma " << sigma;
      if (borders.size() != kAllBorderModes.size()) {
        text << " (";
        for (std::size_t i = 0; i < borders.size(); ++i) text << (i ? " " : "") << borders[i];
        text << ")";
      }
      std::string& line = refused[reason];
      line += (line.empty() ? "" : ", ") + text.str();
    }
  }
  // "Refused up front with the reason": one line per distinct reason, visible in the log.
  for (const auto& [reason, sigmas] : refused)
    std::cout << "[ REFUSED  ] " << method_id << " on " << image_case.name << " at " << sigmas << ": " << reason << "\n";
  return counts;
}

}  // namespace gausslab::gpu_test
