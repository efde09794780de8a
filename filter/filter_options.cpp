#include "filter_options.hpp"

#include "gausslab/batch/memory_budget.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/kernel_options.hpp"
#include "gausslab/core/npy_io.hpp"

namespace gausslab {

namespace {

std::string output_format_list() { return image_format_list(); }

// "png, pnm, tiff, fits or npy" as a list for --format.
std::string formats_for(SampleType sample) { return formats_writing(sample); }

}  // namespace

std::string filter_usage(const std::string& method_ids) {
  return std::string(
             "gausslab-filter: Gaussian blur of image files, one or a whole folder of them, on the GPU\n"
             "(or the CPU), across processes and hosts under mpirun.\n"
             "\n"
             "usage:\n"
             "  gausslab-filter INPUT -o OUTPUT --sigma S [--method ID] [options]\n"
             "  gausslab-filter INPUT... --out-dir DIR --sigma S [--method ID] [options]\n"
             "  gausslab-filter SIGNAL.npy -o OUTPUT.npy --sigma S [--method ID] [options]\n"
             "  mpirun -np N gausslab-filter INPUT... --out-dir DIR --sigma S [options]\n"
             "  gausslab-filter --list-methods [--size WxH --sigma S [options]]\n"
             "  gausslab-filter --help\n"
             "\n"
             "Inputs and outputs:\n"
             "  INPUT               an image file, a folder (its image files), or a pattern such as\n"
             "                      'photos/*.jpg' (quoted, so gausslab-filter expands it)\n"
             "  --from-list FILE    also the paths in FILE, one a line, each exactly as written ('-':\n"
             "                      standard input); empty lines are skipped\n"
             "  --list-comments     the list's lines starting with # are comments\n"
             "  --list-null         the list's names each end with a NUL byte (find -print0), so that\n"
             "                      names holding a newline can be listed\n"
             "  --recursive         folders' subfolders too; their tree is kept under --out-dir\n"
             "  -o, --output FILE   the filtered image (one input); its extension picks the type\n"
             "  --out-dir DIR       batch mode: each input becomes DIR/<its name>.<format>; DIR is\n"
             "                      created when missing\n"
             "  --format F          the type of batch outputs: ") +
         output_format_list() +
         "\n"
         "                      (default png; .npy inputs are written as .npy)\n"
         "  --output-type T     the written samples: u8, u16, f16 or f32 (default: each input's own\n"
         "                      type and channels, kept through every path). Converting: integer to\n"
         "                      integer scales by the ratio of the maxima (u16 -> u8: x 255/65535) and\n"
         "                      rounds half up; float to integer clamps to [0, 1], x the maximum, rounds\n"
         "                      half up (NaN as 0); integer to float divides by the maximum (0..1);\n"
         "                      f32 -> f16 rounds to the nearest half. The run says which rule it used.\n"
         "                      Images only: 1D signals keep their dtype (refused with --output-type).\n"
         "                      A type the output format cannot hold is refused before any work\n"
         "                      (an input's own type: before that file is filtered). Formats holding\n"
         "                      u8: " + formats_for(SampleType::U8) + "\n"
         "                      u16: " + formats_for(SampleType::U16) + "\n"
         "                      f16: " + formats_for(SampleType::F16) + "; f32: " + formats_for(SampleType::F32) + "\n"
         "  --jpeg-quality Q    JPEG outputs' quality, 1 to 100 (libjpeg's scale; default 90)\n"
         "  --overwrite         replace existing output files (never done otherwise)\n"
         "\n"
         "The filter:\n"
         "  --sigma S           standard deviation in pixels, 0.1 to 200\n"
         "  --method ID         a registered method: " +
         method_ids +
         "\n"
         "                      (default: the fastest that runs here within its accuracy bound;\n"
         "                      the run says which)\n"
         "  --border MODE       reflect (default), mirror, nearest, constant, wrap (SciPy's names)\n"
         "  --truncate T        radius = floor(T * sigma + 0.5) as SciPy computes it; 0.5 to 10, default 4\n"
         "  --radius R          set the radius directly (0 to 2000) instead of from --truncate\n" +
         std::string(kernel_flags_usage()) +
         "  --pool MODE         after the blur, 2×2 pooling of images: max2x2 or avg2x2 (none: the\n"
         "                      default). The output is half the size, odd sides rounded down (the last\n"
         "                      row or column dropped, as PyTorch's pooling); avg2x2 takes the mean of the\n"
         "                      four stored values, rounded half up for integer types ((a + b + c + d + 2) / 4)\n"
         "\n"
         "The engine:\n"
         "  --threads N         CPU threads reading, decoding, encoding, writing (and filtering with a\n"
         "                      CPU method); default: every core (shared out among the ranks on a host)\n"
         "  --max-in-flight N   images held at once (default threads + streams + 2); also, no new image\n"
         "                      starts while those held use more than half the host's memory\n"
         "  --streams N         CUDA streams, each with its own buffers (default 3: upload, filter and\n"
         "                      download of three images at once)\n"
         "  --bands N           filter every image in N horizontal bands (each with a halo of radius\n"
         "                      rows); images that do not fit the GPU are banded anyway. Bands give the\n"
         "                      single pass's result byte for byte (fft and recursive: within their bound)\n"
         "  --max-device-memory SIZE   device memory for images, bands and the methods' scratch, e.g.\n"
         "                      1GiB (default 80 % of the free memory, shared out among the ranks on a GPU)\n"
         "  --split files|bands|auto   under mpirun: deal whole files to the ranks, or split every image's\n"
         "                      rows over them (default auto: files when there are at least as many\n"
         "                      files as ranks)\n"
         "  --share-gpus        let several ranks on one host share a GPU (refused otherwise)\n"
         "  --quiet             print only errors and the failures at the end\n"
         "  --list-methods      the registered methods, one per line: id, backend, label, and\n"
         "                      'unavailable: reason' where a method cannot run here. With --size WxH\n"
         "                      (and --sigma etc.) a fourth column tells, for an RGBA8 image of that size,\n"
         "                      'bound: L levels' (the accuracy the method promises) or 'refuses: reason';\n"
         "                      a label ending in [1D] marks a method that also filters 1D signals;\n"
         "                      [kernels: separable] or [kernels: any 2D] one that takes custom kernels,\n"
         "                      [rounding: ...] one that stores integers by floor and ceil too\n"
         "\n"
         "Input: " +
         supported_input_formats() +
         ".\n"
         "Every pixel type is kept: 8- and 16-bit integers, half and float32, 1 to 4 channels, are\n"
         "filtered in their own type (float32 arithmetic) and written in it; a float64 source (FITS,\n"
         ".npy) is filtered in float32, the run says so naming the file, and is written back as float64\n"
         "where the output format holds it (fits, npy). A method that does not take an image's type is\n"
         "refused for that image with its reason, before it is filtered. A 2D (HxW) or 3D (HxWxC, C 1-4)\n"
         ".npy array is an image.\n"
         "1D signals: a NumPy .npy file (named, or matched by a pattern) holding one 1D float32 or\n"
         "float64 array is filtered along its one axis, as scipy.ndimage.gaussian_filter1d does (any of\n"
         "the five borders), or correlated with --kernel's mask as scipy.ndimage.correlate1d does, by\n"
         "the methods marked [1D]; the output is a .npy of the same dtype (with\n"
         "--out-dir: DIR/<name>.npy). float64 is filtered in float32 and written back as float64\n"
         "(relative error about 1e-7, not 1e-16). Signals are filtered one after the other on rank 0.\n"
         "The output keeps the input's channels: grey stays grey, grey+alpha stays grey+alpha,\n"
         "RGB stays RGB, RGBA stays RGBA (every channel is filtered, alpha too); a BMP cannot hold\n"
         "grey+alpha, so such an image becomes an RGBA .bmp (use .png to keep two channels).\n"
         "Outputs are written to a temporary name and moved into place: never a partial file; an input\n"
         "is never written.\n"
         "\n"
         "exit status: 0 done; 1 a file could not be read, filtered or written (the other files are\n"
         "still done; under mpirun, on every rank), or the pipe the output goes to closed (the run\n"
         "stops; the files written are whole); 2 bad arguments, or a single input the method\n"
         "refuses at its size (nothing was written).\n";
}

namespace {

int parse_count(const std::string& flag, const std::string& text, int max) { return parse_int(flag, text, 1, max); }

}  // namespace

std::string signal_output_type_refusal(const std::optional<SampleType>& output_type) {
  if (!output_type) return {};
  return "is a 1D signal: signals keep their own dtype (float32 or float64 .npy), and --output-type " +
         std::string(to_string(*output_type)) +
         " converts images only; filter signals in a run without --output-type (or convert the result with NumPy)";
}

FilterOptions parse_filter_options(int argc, const char* const* argv) {
  FilterOptions options;
  ArgReader reader(argc, argv);
  std::string arg;
  bool radius_given = false, truncate_given = false, format_given = false;
  KernelFlags kernel_flags;
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
    } else if (arg == "--from-list") {
      if (!options.list_file.empty()) throw UsageError("--from-list is given twice; give one list");
      options.list_file = reader.value(arg);
      if (options.list_file.empty()) throw UsageError("--from-list: the file name is empty ('-' reads standard input)");
    } else if (arg == "--list-comments") {
      options.list_comments = true;
    } else if (arg == "--list-null") {
      options.list_null = true;
    } else if (arg == "--recursive" || arg == "-r") {
      options.recursive = true;
    } else if (arg == "--format") {
      std::string name = reader.value(arg);
      if (!name.empty() && name[0] == '.') name.erase(0, 1);
      const std::optional<ImageFormat> format = image_format_from_string(name);
      if (!format) throw UsageError("--format: unknown output type '" + name + "'; use " + output_format_list());
      options.batch_extension = file_extension(*format);
      format_given = true;
    } else if (arg == "--output-type") {
      const std::string name = reader.value(arg);
      options.output_type = sample_type_from_string(name);
      if (!options.output_type) throw UsageError("--output-type: unknown type '" + name + "'; use u8, u16, f16 or f32");
    } else if (arg == "--jpeg-quality") {
      options.jpeg_quality = parse_int(arg, reader.value(arg), 1, 100);
    } else if (arg == "--method") {
      options.method_id = reader.value(arg);
      if (options.method_id.empty()) throw UsageError("--method: the id is empty; see --list-methods");
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
    } else if (arg == "--pool") {
      const std::string mode = reader.value(arg);
      const std::optional<PoolMode> pool = pool_mode_from_string(mode);
      if (!pool) throw UsageError("--pool: unknown mode '" + mode + "'; use max2x2, avg2x2 or none");
      options.pool = *pool;
    } else if (arg == "--overwrite") {
      options.overwrite = Overwrite::Allowed;
    } else if (arg == "--quiet" || arg == "-q") {
      options.quiet = true;
    } else if (arg == "--threads") {
      options.threads = parse_count(arg, reader.value(arg), 4096);
    } else if (arg == "--max-in-flight") {
      options.max_in_flight = parse_count(arg, reader.value(arg), 100000);
    } else if (arg == "--streams") {
      options.streams = parse_count(arg, reader.value(arg), 16);
    } else if (arg == "--bands") {
      options.bands = parse_count(arg, reader.value(arg), 1 << 20);
    } else if (arg == "--max-device-memory") {
      options.max_device_bytes = parse_bytes(arg, reader.value(arg));
    } else if (arg == "--split") {
      const std::string split = reader.value(arg);
      if (split == "files")
        options.split = SplitMode::Files;
      else if (split == "bands")
        options.split = SplitMode::Bands;
      else if (split == "auto")
        options.split = SplitMode::Auto;
      else
        throw UsageError("--split: '" + split + "' is not files, bands or auto");
    } else if (arg == "--share-gpus") {
      options.share_gpus = true;
    } else if (read_kernel_flag(arg, reader, kernel_flags)) {
      // --kernel, --kernel-2d, --kernel-x/-y, --convolve, --normalize, --rounding: applied below
    } else if (ArgReader::is_option(arg)) {
      throw UsageError("unknown option '" + arg + "'; see gausslab-filter --help");
    } else {
      options.inputs.push_back(arg);
    }
  }
  if (radius_given && truncate_given)
    throw UsageError("--radius and --truncate both set the radius; give only one of them");
  std::vector<std::string> gaussian_flags;
  if (options.sigma_given) gaussian_flags.push_back("--sigma");
  if (truncate_given) gaussian_flags.push_back("--truncate");
  if (radius_given) gaussian_flags.push_back("--radius");
  apply_kernel_flags(kernel_flags, gaussian_flags, options.params);
  const bool filter_given = options.sigma_given || options.params.custom_kernel();

  if (options.mode == FilterOptions::Mode::ListMethods) {
    if (!options.inputs.empty() || !options.output.empty() || !options.out_dir.empty() || !options.list_file.empty())
      throw UsageError("--list-methods takes no input or output files");
    if (options.list_problem_size) {
      if (!filter_given) throw UsageError("--list-methods --size needs --sigma (or a custom kernel) too");
      if (std::string problem = validate(options.params); !problem.empty()) throw UsageError(problem);
    }
    return options;
  }
  if (options.list_problem_size) throw UsageError("--size only goes with --list-methods");

  if ((options.list_comments || options.list_null) && options.list_file.empty())
    throw UsageError(std::string(options.list_comments ? "--list-comments" : "--list-null") +
                     " describes the list of --from-list, and none is given; add --from-list FILE");
  if (options.inputs.empty() && options.list_file.empty())
    throw UsageError("no input file given; usage: gausslab-filter INPUT -o OUTPUT --sigma S");
  if (!options.output.empty() && !options.out_dir.empty())
    throw UsageError("give either -o OUTPUT (one input) or --out-dir DIR (any number of inputs), not both");
  if (options.output.empty() && options.out_dir.empty()) {
    if (options.inputs.size() == 1 && options.list_file.empty())
      throw UsageError("no output given; add -o OUTPUT.png (or --out-dir DIR)");
    throw UsageError((options.list_file.empty() ? std::to_string(options.inputs.size()) + " input files given"
                                                : std::string("--from-list names the inputs")) +
                     " but no --out-dir; add --out-dir DIR for a batch");
  }
  if (!options.output.empty()) {
    if (options.inputs.size() > 1 || !options.list_file.empty())
      throw UsageError("-o names one output but " +
                       (options.list_file.empty() ? std::to_string(options.inputs.size()) + " inputs are given"
                                                  : std::string("--from-list names the inputs")) +
                       "; use --out-dir DIR for a batch");
    if (format_given) throw UsageError("--format is for --out-dir; with -o the output's extension gives the type");
  }
  if (!filter_given)
    throw UsageError("no sigma given; add --sigma S (pixels, 0.1 to 200), or a custom kernel (--kernel 1,2,1)");
  if (std::string problem = validate(options.params); !problem.empty()) throw UsageError(problem);
  if (options.output_type && options.batch()) {  // before any work: every image output has this format
    const ImageFormat format = *image_format_from_path("x" + options.batch_extension);
    if (std::string problem = check_output_type(format, make_pixel_format(*options.output_type, 1)); !problem.empty())
      throw UsageError("--output-type " + std::string(to_string(*options.output_type)) + " with --format " +
                       to_string(format) + ": " + problem);
  }
  if (std::string refusal = signal_output_type_refusal(options.output_type); !refusal.empty())
    for (const std::string& input : options.inputs)
      if (is_npy_signal(input)) throw UsageError("'" + input + "' " + refusal);
  if (options.pool != PoolMode::None)
    for (const std::string& input : options.inputs)
      if (is_npy_signal(input))
        throw UsageError("--pool pools images 2×2, but '" + input +
                         "' is a 1D signal; filter signals in a run without --pool");
  return options;
}

}  // namespace gausslab
