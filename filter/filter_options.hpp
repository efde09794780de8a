#pragma once
// gausslab-filter's command line: what the user asked for, parsed and checked before any work.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image_io.hpp"

namespace gausslab {

struct FilterOptions {
  enum class Mode { Filter, ListMethods, Help };
  Mode mode = Mode::Filter;

  std::vector<std::string> inputs;
  std::string output;                    // -o: single-file mode
  std::string out_dir;                   // --out-dir: batch mode
  std::string batch_extension = ".png";  // --format png|bmp: the type of batch outputs
  std::string method_id;
  FilterParams params;
  bool sigma_given = false;
  Overwrite overwrite = Overwrite::Never;
  bool quiet = false;
  // --list-methods --size WxH: also report, for an RGBA8 image of this size and the given
  // parameters, whether each method accepts the problem and the accuracy it promises.
  std::optional<std::pair<int, int>> list_problem_size;

  bool batch() const { return !out_dir.empty(); }
};

// Parses argv. Throws UsageError naming the flag, the value and what is allowed. Checks only what
// the command line alone decides (flags, numbers, the parameter ranges, the choice of -o or
// --out-dir); the method and the files are checked by plan_filter_jobs.
FilterOptions parse_filter_options(int argc, const char* const* argv);

// The --help text; method_ids lists the registered methods.
std::string filter_usage(const std::string& method_ids);

}  // namespace gausslab
