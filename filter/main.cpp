// gausslab-filter: Gaussian blur of image files with any registered method, headless; one file, a
// folder or a list, pipelined through the GPU, across processes and hosts under mpirun.
#include <iostream>
#include <map>
#include <string>

#include "filter_options.hpp"
#include "filter_runner.hpp"
#include "gausslab/batch/mpi_main.hpp"
#include "gausslab/core/broken_pipe.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"
#include "program_version.hpp"

namespace {

using namespace gausslab;

// id, backend, label, and where it cannot run here, why; with a problem size, what the method says
// about that problem (the check script reads the promised accuracy from here).
// A reason shared by several methods (no CUDA device: the same long sentence for every GPU method)
// is written in full once; the others name the first method that gave it.
void list_methods(const FilterOptions& options) {
  std::map<std::string, std::string> first_with_reason;
  for (const MethodEntry& entry : method_registry()) {
    std::cout << entry.info.id << '\t' << to_string(entry.info.backend) << '\t' << entry.info.label
              << (entry.info.kernels != KernelSupport::GaussianOnly
                      ? std::string(" [kernels: ") + to_string(entry.info.kernels) + "]"
                      : std::string())
              << (entry.info.all_roundings ? " [rounding: nearest, floor, ceil]" : "")
              << (entry.info.filters_along_x_only ? " [1D]" : "");
    const std::string unavailable = method_unavailable_reason(entry);
    if (!unavailable.empty()) {
      const auto [first, fresh] = first_with_reason.emplace(unavailable, entry.info.id);
      std::cout << "\tunavailable: " << (fresh ? unavailable : "the reason given for " + first->second) << '\n';
      continue;
    }
    if (options.list_problem_size) {
      const FilterProblem problem{options.list_problem_size->first, options.list_problem_size->second,
                                  PixelFormat::Rgba8, options.params};
      const std::unique_ptr<Method> method = entry.create();
      if (std::string reason = method->unsupported_reason(problem); !reason.empty())
        std::cout << "\trefuses: " << reason;
      else
        std::cout << "\tbound: " << method->accuracy_bound(problem).max_error_8bit << " levels";
    }
    std::cout << '\n';
  }
}

int run(int argc, char** argv, MpiSession& mpi) {
  stop_on_broken_pipe("gausslab-filter", kExitFileFailed);  // | head: a message and status 1, not SIGPIPE
  const FilterOptions options = parse_filter_options(argc, argv);
  switch (options.mode) {
    case FilterOptions::Mode::Help:
      if (mpi.root()) std::cout << filter_usage(method_id_list());
      return kExitDone;
    case FilterOptions::Mode::ListMethods:
      if (mpi.root()) list_methods(options);
      return kExitDone;
    case FilterOptions::Mode::Filter:
      break;
  }
  return run_filter(options, mpi, std::cin, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  if (version_requested(argc, argv)) {  // before MPI starts: help2man and scripts run it alone
    std::cout << version_text("gausslab-filter");
    return kExitDone;
  }
  return run_with_mpi("gausslab-filter", argc, argv, {kExitFileFailed, kExitUsage}, run);
}
