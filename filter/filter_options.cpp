#include "filter_options.hpp"

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

std::string filter_usage(const std::string& method_ids) {
  return std::string(
             "gausslab-filter: Gaussian blur of image files, headless, with any gausslab method.\n"
             "\n"
             "usage:\n"
             "  gausslab-filter INPUT -o OUTPUT --method ID --sigma S [options]\n"
             "  gausslab-filter INPUT... --out-dir DIR --method ID --sigma S [--format png|bmp] [options]\n"
             "  gausslab-filter --list-methods [--size WxH --sigma S [options]]\n"
             "  gausslab-filter --help\n"
             "\n"
             "  -o, --output FILE   the filtered image; .png or .bmp (by extension)\n"
             "  --out-dir DIR       batch mode: each INPUT becomes DIR/<input name>.png (or .bmp with\n"
             "                      --format bmp); DIR must exist\n"
             "  --format png|bmp    the type of batch outputs (default png)\n"
             "  --method ID         a registered method: ") +
         method_ids +
         " (see --list-methods)\n"
         "  --sigma S           standard deviation in pixels, 0.1 to 200\n"
         "  --border MODE       reflect (default), mirror, nearest, constant, wrap (SciPy's names)\n"
         "  --truncate T        radius = floor(T * sigma + 0.5) as SciPy computes it; 0.5 to 10, default 4\n"
         "  --radius R          set the radius directly (0 to 2000) instead of from --truncate\n"
         "  --overwrite         replace existing output files (never done otherwise)\n"
         "  --quiet             print only errors\n"
         "  --list-methods      the registered methods, one per line: id, backend, label, and\n"
         "                      'unavailable: reason' where a method cannot run here. With --size WxH\n"
         "                      (and --sigma etc.) a fourth column tells, for an RGBA8 image of that size,\n"
         "                      'bound: L levels' (the accuracy the method promises) or 'refuses: reason'\n"
         "\n"
         "Input: " +
         supported_input_formats() +
         ".\nThe output keeps the input's channels: grey stays grey, grey+alpha stays grey+alpha,\n"
         "RGB stays RGB, RGBA stays RGBA (every channel is filtered, alpha too); a BMP cannot hold\n"
         "grey+alpha, so such an image becomes an RGBA .bmp (use .png to keep two channels).\n"
         "Outputs are written to a temporary name and moved into place: never a partial file.\n"
         "\n"
         "exit status: 0 done; 1 a file could not be read, filtered or written (in batch mode the\n"
         "other files are still done); 2 bad arguments, or a single input the method refuses at its\n"
         "size (nothing was written).\n";
}

FilterOptions parse_filter_options(int argc, const char* const* argv) {
  FilterOptions options;
  ArgReader reader(argc, argv);
  std::string arg;
  bool radius_given = false, truncate_given = false;
  while (reader.next(arg)) {
    if (arg == "-h" || arg == "--help") {
      options.mode = FilterOptions::Mode::Help;
      return options;
    } else if (arg == "--list-methods") {
      options.mode = FilterOptions::Mode::ListMethods;
    } else if (arg == "-o" || arg == "--output") {
      if (!options.output.empty()) throw UsageError(arg + " is given twice; give one output file");
      options.output = reader.value(arg);
      if (options.output.empty()) throw UsageError(arg + ": the output file name is empty");
    } else if (arg == "--out-dir") {
      if (!options.out_dir.empty()) throw UsageError("--out-dir is given twice; give one folder");
      options.out_dir = reader.value(arg);
      if (options.out_dir.empty()) throw UsageError("--out-dir: the folder name is empty");
    } else if (arg == "--format") {
      const std::string format = reader.value(arg);
      if (format == "png" || format == "bmp")
        options.batch_extension = "." + format;
      else
        throw UsageError("--format: unknown output type '" + format + "'; use png or bmp");
    } else if (arg == "--method") {
      options.method_id = reader.value(arg);
    } else if (arg == "--sigma") {
      const std::string text = reader.value(arg);
      try {
        options.params.sigma = parse_double(arg, text);
      } catch (const UsageError& error) {  // "nan", "inf", "abc": say what is allowed too
        throw UsageError(std::string(error.what()) + "; give a value between 0.1 and 200 pixels");
      }
      options.sigma_given = true;
    } else if (arg == "--border") {
      options.params.border = parse_border(arg, reader.value(arg));
    } else if (arg == "--truncate") {
      options.params.truncate = parse_double(arg, reader.value(arg));
      truncate_given = true;
    } else if (arg == "--radius") {
      options.params.fixed_radius = parse_int(arg, reader.value(arg), 0, kMaxRadius);
      radius_given = true;
    } else if (arg == "--size") {
      options.list_problem_size = parse_size(arg, reader.value(arg));
    } else if (arg == "--overwrite") {
      options.overwrite = Overwrite::Allowed;
    } else if (arg == "--quiet" || arg == "-q") {
      options.quiet = true;
    } else if (ArgReader::is_option(arg)) {
      throw UsageError("unknown option '" + arg + "'; see gausslab-filter --help");
    } else {
      options.inputs.push_back(arg);
    }
  }
  if (radius_given && truncate_given)
    throw UsageError("--radius and --truncate both set the radius; give only one of them");

  if (options.mode == FilterOptions::Mode::ListMethods) {
    if (!options.inputs.empty() || !options.output.empty() || !options.out_dir.empty())
      throw UsageError("--list-methods takes no input or output files");
    if (options.list_problem_size) {
      if (!options.sigma_given) throw UsageError("--list-methods --size needs --sigma too");
      if (std::string problem = validate(options.params); !problem.empty()) throw UsageError(problem);
    }
    return options;
  }
  if (options.list_problem_size) throw UsageError("--size only goes with --list-methods");

  if (options.inputs.empty())
    throw UsageError("no input file given; usage: gausslab-filter INPUT -o OUTPUT --method ID --sigma S");
  if (!options.output.empty() && !options.out_dir.empty())
    throw UsageError("give either -o OUTPUT (one input) or --out-dir DIR (any number of inputs), not both");
  if (options.output.empty() && options.out_dir.empty()) {
    if (options.inputs.size() == 1) throw UsageError("no output given; add -o OUTPUT.png (or --out-dir DIR)");
    throw UsageError(std::to_string(options.inputs.size()) +
                     " input files given but no --out-dir; add --out-dir DIR for a batch");
  }
  if (!options.output.empty() && options.inputs.size() > 1)
    throw UsageError("-o names one output but " + std::to_string(options.inputs.size()) +
                     " inputs are given; use --out-dir DIR for a batch");
  if (options.method_id.empty())
    throw UsageError("no method given; add --method ID (gausslab-filter --list-methods shows the ids)");
  if (!options.sigma_given) throw UsageError("no sigma given; add --sigma S (pixels, 0.1 to 200)");
  if (std::string problem = validate(options.params); !problem.empty()) throw UsageError(problem);
  return options;
}

}  // namespace gausslab
