#pragma once
// gausslab-filter's command line: what the user asked for, parsed and checked before any work.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gausslab/batch/distributed.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/pooling.hpp"

namespace gausslab {

struct FilterOptions {
  enum class Mode { Filter, ListMethods, Help };
  Mode mode = Mode::Filter;

  std::vector<std::string> inputs;       // files, folders, patterns
  std::string list_file;                 // --from-list FILE ("-": standard input)
  bool list_comments = false;            // --list-comments: '#' lines of the list are comments
  bool list_null = false;                // --list-null: the list's names end with NUL bytes
  bool recursive = false;                // --recursive
  std::string output;                    // -o: single-file mode
  std::string out_dir;                   // --out-dir: batch mode (created when missing)
  std::string batch_extension = ".png";  // --format: the type of batch outputs (.npy inputs: .npy)
  std::optional<SampleType> output_type; // --output-type: the written samples (empty: each input's own)
  int jpeg_quality = 90;                 // --jpeg-quality: for .jpg outputs, 1..100
  std::string method_id;                 // empty: the default rule (choose_default_method)
  FilterParams params;  // axes Both: a .npy signal is filtered with axes RowsOnly (filter_signal.hpp)
  bool sigma_given = false;
  PoolMode pool = PoolMode::None;  // --pool: 2×2 pooling of images after the blur
  Overwrite overwrite = Overwrite::Never;
  bool quiet = false;

  // The engine.
  int threads = 0;                    // --threads (0: this rank's share of the cores)
  int max_in_flight = 0;              // --max-in-flight (0: threads + streams + 2)
  int streams = 3;                    // --streams: GPU lanes
  int bands = 0;                      // --bands N (0: only images that do not fit)
  std::size_t max_device_bytes = 0;   // --max-device-memory
  SplitMode split = SplitMode::Auto;  // --split files|bands|auto (under mpirun)
  bool share_gpus = false;            // --share-gpus

  // --list-methods --size WxH: also report, for an RGBA8 image of this size and the given
  // parameters, whether each method accepts the problem and the accuracy it promises.
  std::optional<std::pair<int, int>> list_problem_size;

  // Batch mode: an output folder, or inputs that can be many (a folder, a pattern, a list).
  bool batch() const { return !out_dir.empty(); }
};

// Parses argv. Throws UsageError naming the flag, the value and what is allowed. Checks only what
// the command line alone decides (flags, numbers, the parameter ranges, the choice of -o or
// --out-dir); the method and the files are checked when the jobs are planned.
FilterOptions parse_filter_options(int argc, const char* const* argv);

// Why a 1D signal cannot take --output-type T ("" when none is given): a signal is written in its
// own dtype (float32 or float64 .npy), and no conversion of signals is offered. The text follows
// the signal's quoted name.
std::string signal_output_type_refusal(const std::optional<SampleType>& output_type);

// The --help text; method_ids lists the registered methods.
std::string filter_usage(const std::string& method_ids);

}  // namespace gausslab
