#include "bench_options.hpp"

#include <algorithm>
#include <string_view>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/filter_params.hpp"

namespace gausslab {

namespace {

int parse_size_item(std::string_view flag, std::string_view text) { return parse_int(flag, text, 1, 32768); }
// A synthetic sky's frame size, within the sizes the sky is made for (sequence/src/synthetic.cpp):
// refused while the options are read, not after the output folder was made.
std::pair<int, int> parse_sequence_size(std::string_view flag, std::string_view text) {
  const std::pair<int, int> size = parse_size(flag, text);
  if (size.first < 16 || size.second < 16 || size.first > 16384 || size.second > 16384)
    throw UsageError(std::string(flag) + ": '" + std::string(text) +
                     "': synthetic frames are 16 to 16384 pixels on each side");
  return size;
}

int parse_kernel_item(std::string_view flag, std::string_view text) {
  const int k = parse_int(flag, text, 3, 2 * kMaxRadius + 1);
  if (k % 2 == 0)
    throw UsageError(std::string(flag) + ": " + std::string(text) +
                     " is even; a k×k kernel has an odd side (7, 41, ...)");
  return k;
}

double parse_sigma_item(std::string_view flag, std::string_view text) {
  const double sigma = parse_double(flag, text);
  if (sigma < kMinSigma || sigma > kMaxSigma)
    throw UsageError(std::string(flag) + ": sigma " + std::string(text) + " is outside [0.1, 200] pixels");
  return sigma;
}

// Any pixel format: the benchmark makes its random input in each (bench_runner.cpp).
PixelFormat parse_format_item(std::string_view flag, std::string_view text) { return parse_pixel_format(flag, text); }

std::string parse_method_item(std::string_view, std::string_view text) { return std::string(text); }

// 2^E samples: 2^10 to 2^29 (the longest line gausslab filters).
int parse_log2_length_item(std::string_view flag, std::string_view text) { return parse_int(flag, text, 10, 29); }

int parse_radius_item(std::string_view flag, std::string_view text) { return parse_int(flag, text, 0, kMaxRadius); }

double parse_positive(std::string_view flag, std::string_view text) {
  const double value = parse_double(flag, text);
  if (value <= 0) throw UsageError(std::string(flag) + ": " + std::string(text) + " must be greater than 0");
  return value;
}

// What a run measures: one mode each, chosen by its flag (the default comparison without one).
enum Mode : unsigned { kMain = 1, kSequence = 2, kCodecs = 4, kBatch = 8, kMakeImage = 16, kAll = 31 };

const char* mode_name(unsigned mode) {
  switch (mode) {
    case kSequence: return "--sequence (the image-sequence benchmark)";
    case kCodecs: return "--codecs (the codec rates)";
    case kBatch: return "--batch (the batch workload)";
    case kMakeImage: return "--make-image";
    default: return "the default comparison of the methods";
  }
}

// Where each flag applies: its modes, and for a section's own settings the flag of that section.
struct FlagScope {
  std::string_view flag;
  unsigned modes;
  std::string_view sections = {};  // "--lut,--unrolled": one of them must be given too
};

constexpr FlagScope kFlagScopes[] = {
    {"--sizes", kMain}, {"--kernels", kMain}, {"--sigmas", kMain}, {"--truncate", kMain}, {"--formats", kMain},
    {"--methods", kMain}, {"--border", kMain | kBatch}, {"--sigma-sweep", kMain},
    {"--sweep-formats", kMain, "--sigma-sweep"}, {"--sweep-sizes", kMain, "--sigma-sweep"},
    {"--sweep-size", kMain, "--sigma-sweep"},
    {"--sweep-sigmas", kMain, "--sigma-sweep"}, {"--scaling-sizes", kMain, "--sigma-sweep"}, {"--signals", kMain},
    {"--signal-lengths", kMain, "--signals"}, {"--signal-radii", kMain, "--signals"}, {"--lut", kMain},
    {"--lut-radii", kMain, "--lut"}, {"--unrolled", kMain}, {"--unrolled-kernels", kMain, "--unrolled"},
    {"--pooling", kMain}, {"--custom-kernels", kMain},
    {"--technique-size", kMain, "--lut,--unrolled,--pooling,--custom-kernels"}, {"--no-main", kMain},
    {"--out", kAll & ~kMakeImage}, {"--overwrite", kAll}, {"--quick", kMain | kSequence | kCodecs},
    {"--cpu-cap-seconds", kMain}, {"--gpu-cap-ms", kMain}, {"--budget-seconds", kMain}, {"--no-plot", kMain},
    {"--sequence-sizes", kSequence}, {"--sequence-history", kSequence}, {"--sequence-paths", kSequence},
    {"--batch-images", kBatch}, {"--batch-size", kBatch}, {"--batch-kernel", kBatch}, {"--batch-sigma", kBatch},
    {"--batch-method", kBatch},
    {"--batch-configs", kBatch}, {"--batch-dir", kBatch}, {"--threads", kBatch},
};

// The flags that choose the run themselves.
constexpr std::string_view kModeFlags[] = {"--help", "-h", "--sequence", "--codecs", "--batch", "--make-image"};

bool was_given(const std::vector<std::string>& given, std::string_view flag) {
  return std::find(given.begin(), given.end(), flag) != given.end();
}

// Refuses a flag that the chosen mode would silently ignore (--batch-images without --batch ran the
// whole default comparison), and two modes at once, naming what applies.
void check_flags_apply(const std::vector<std::string>& given, const BenchOptions& options) {
  std::vector<unsigned> modes;
  if (!options.make_image_path.empty()) modes.push_back(kMakeImage);
  if (options.batch.enabled) modes.push_back(kBatch);
  if (options.sequence) modes.push_back(kSequence);
  if (!options.codec_images.empty()) modes.push_back(kCodecs);
  if (modes.size() > 1)
    throw UsageError(std::string(mode_name(modes[0])) + " and " + mode_name(modes[1]) +
                     " are two different runs; give one of them");
  const unsigned mode = modes.empty() ? kMain : modes[0];
  for (const std::string& flag : given) {
    const FlagScope* scope = nullptr;
    for (const FlagScope& s : kFlagScopes)
      if (s.flag == flag) scope = &s;
    if (!scope) continue;  // the mode flags themselves
    if (!(scope->modes & mode)) {
      std::string where;
      for (unsigned m = kMain; m <= kMakeImage; m <<= 1)
        if (scope->modes & m) where += std::string(where.empty() ? "" : " or ") + mode_name(m);
      throw UsageError(flag + " applies to " + where + ", not to " + mode_name(mode) +
                       ", which would ignore it; leave it out or choose that run");
    }
    if (scope->sections.empty()) continue;
    bool section_given = false;
    std::string list;
    for (std::size_t at = 0; at < scope->sections.size();) {
      const std::size_t end = std::min(scope->sections.find(',', at), scope->sections.size());
      const std::string_view section = scope->sections.substr(at, end - at);
      section_given |= was_given(given, section);
      list += std::string(list.empty() ? "" : " or ") + std::string(section);
      at = end + 1;
    }
    if (!section_given)
      throw UsageError(flag + " sets a section that is not asked for, and would be ignored; add " + list);
  }
}

}  // namespace

bool bench_flag_has_scope(std::string_view flag) {
  for (std::string_view mode_flag : kModeFlags)
    if (flag == mode_flag) return true;
  for (const FlagScope& scope : kFlagScopes)
    if (scope.flag == flag) return true;
  return false;
}

// The --batch configurations (bench_batch.cpp runs them); here, with the parser that checks the names,
// so that the parser stands alone (and is fuzzed alone).
const std::vector<std::string>& batch_config_names() {
  static const std::vector<std::string> names = {"cpu-1-thread", "cpu-openmp", "cpu-pool",      "gpu-pageable",
                                                 "gpu-pipelined-cold", "gpu-pipelined", "mpi-files", "mpi-rows"};
  return names;
}

int kernel_radius(int kernel_size) { return (kernel_size - 1) / 2; }
double kernel_sigma(int kernel_size) { return kernel_radius(kernel_size) / 3.0; }

std::string bench_usage(const std::string& method_ids) {
  return "gausslab-bench: times every gausslab method on this machine's GPU and CPU, with accuracy.\n"
         "\n"
         "usage: gausslab-bench [options]\n"
         "\n"
         "With no options it reproduces the published comparison: float32 single-channel images of\n"
         "1024², 2048², 3072² and 4096² with 7×7 and 41×41 kernels (a k×k kernel is radius (k-1)/2 and\n"
         "sigma = radius/3, the papers' 3-sigma kernels), and the same on RGBA8 images as the viewer\n"
         "shows them, for every registered method.\n"
         "\n"
         "  --sizes N,...          square image sides (default 1024,2048,3072,4096)\n"
         "  --kernels K,...        k×k kernels, odd k >= 3 (default 7,41)\n"
         "  --sigmas S,...         sigmas with radius floor(truncate*sigma+0.5) as SciPy; given alone,\n"
         "                         they replace the default kernels\n"
         "  --truncate T           for --sigmas and the sweep (default 4)\n"
         "  --formats F,...        pixel formats: f32 (the papers), rgba8 (the viewer), rgba16, rgba32f,\n"
         "                         any of " + pixel_format_list() + "; default f32,rgba8\n"
         "  --methods ID,...       default all: " +
         method_ids +
         "\n"
         "  --border MODE          reflect (default), mirror, nearest, constant, wrap\n"
         "  --sigma-sweep          also time every method against sigma in each sweep format (the\n"
         "                         crossover plot, a best-method line per sigma with its share of the\n"
         "                         copy bandwidth for the format's bytes) and auto, separable_fused\n"
         "                         and multires against the pixel count at sigma 2, 32 (RGBA8)\n"
         "  --sweep-formats F,...  the sweep's formats (default rgba8,rgba16,rgba32f,f32)\n"
         "  --sweep-sizes N,...    the sweep's image sides (default 4096,8192)\n"
         "  --sweep-sigmas S,...   default 0.5,1,2,4,8,16,32,64\n"
         "  --scaling-sizes N,...  image sides of the time-against-pixels rows (default\n"
         "                         1024,2048,4096,8192)\n"
         "\n"
         "Sections of the techniques beyond the published comparison (each its own table):\n"
         "  --signals              1D signals: every GPU method that filters along x only (tiled_1d,\n"
         "                         separable_shared's row pass) on float32 signals of 2^E samples\n"
         "  --signal-lengths E,... the exponents E (default 16,18,20,22,24,26,28)\n"
         "  --signal-radii R,...   default 3,20,64 (sigma = radius / 3)\n"
         "  --lut                  lut_2d against the multiply kernels naive_2d and shared_2d, RGBA8\n"
         "  --lut-radii R,...      default 1,2,3,4,6,8\n"
         "  --unrolled             naive_2d and shared_2d: the compile-time kernels of radius 1 to 3\n"
         "                         against the run-time loop forced for every radius\n"
         "  --unrolled-kernels K,... default 3,5,7\n"
         "  --pooling              blur then 2×2 pooling (max and avg): fused into the method's last\n"
         "                         pass against a separate pooling kernel, 7×7 kernels\n"
         "  --custom-kernels       custom kernels (issue 37): a 41-tap pair and the 5×5 integer table\n"
         "                         (normalised, floor, zero border) in each --formats, every method that\n"
         "                         takes them, beside the Gaussian of the same reach\n"
         "  --technique-size N     the image side of --lut, --unrolled, --pooling and --custom-kernels\n"
         "                         (default 4096)\n"
         "  --no-main              only the sections asked for, not the published comparison\n"
         "\n"
         "  --out DIR              results.csv, results.json, results.md and charts (default\n"
         "                         gausslab-bench-results); created if missing\n"
         "  --overwrite            replace results already in DIR (never done otherwise)\n"
         "  --quick                fewer runs (1 warm-up, 3 to 10 runs in ~0.05 s): for trying options\n"
         "  --cpu-cap-seconds S    skip a CPU configuration estimated above S s per run (default 5)\n"
         "  --gpu-cap-ms MS        skip a GPU configuration predicted above MS ms per run (default 250)\n"
         "  --budget-seconds S     skip what is left once the run has taken S s (default 480)\n"
         "  --no-plot              do not run bench/plot_results.py at the end\n"
         "\n"
         "  --sequence             instead: the image-sequence benchmark (shift estimation, weights and\n"
         "                         whitening, gausslab-sequence's work): ms per frame per path and per\n"
         "                         stage, GB/s, CUDA graphs, the event timeline; sequence.md, .csv\n"
         "  --sequence-sizes WxH,...   frame sizes (default 512x512,3648x2736)\n"
         "  --sequence-history N   history frames (default 20)\n"
         "  --sequence-paths P,... gpu, cpu or both (default gpu,cpu)\n"
         "  --codecs FILE,...      instead: how fast image files are decoded and encoded on one core\n"
         "                         (each FILE decoded; the first also encoded in every output format and\n"
         "                         decoded again); codecs.md, codecs.csv\n"
         "\n"
         "The batch workload (end to end: files read, decoded, filtered, encoded and written):\n"
         "  --batch                the original system's workload: 20 generated 4096×2304 24-bit BMP\n"
         "                         files, its 5×5 table (a Gaussian of sigma 1.5, radius 2), zero\n"
         "                         border, for one CPU thread, OpenMP, the thread pool, the GPU one\n"
         "                         image at a time from pageable memory, and the pipelined GPU;\n"
         "                         under mpirun -np N, N ranks (files dealt out, and each\n"
         "                         image's rows scattered). Also measures the host-device bandwidth\n"
         "                         (pinned, pageable) and one core's read/decode/encode rate. Writes\n"
         "                         batch.md and batch.csv (batch-mpiN.*) into --out\n"
         "  --batch-images N       images (default 20)\n"
         "  --batch-size WxH       their size (default 4096x2304)\n"
         "  --batch-kernel K       the k×k kernel (default 5; radius (k-1)/2); the border is --border's\n"
         "                         (default here: constant, the original's zero border)\n"
         "  --batch-sigma S        its sigma (default 1.5, the original's)\n"
         "  --batch-method ID      the GPU method (default: the default rule's, as gausslab-filter)\n"
         "  --batch-configs C,...  only these: cpu-1-thread, cpu-openmp, cpu-pool, gpu-pageable,\n"
         "                         gpu-pipelined-cold, gpu-pipelined, mpi-files, mpi-rows\n"
         "  --batch-dir DIR        where the images are made and kept (default: a temporary folder, removed)\n"
         "  --threads N            the batch's CPU pool (default: every core, shared among ranks)\n"
         "  --make-image WxH PATH  write a deterministic RGBA8 noise image (the format from PATH's\n"
         "                         extension; .tga for 32768x32768) and stop\n"
         "\n"
         "GPU timing: CUDA events around method.run on one stream, after warm-up runs; then at least\n"
         "50 runs or 0.5 s, whichever comes first, and at least 5 runs; median, min and p90. Inputs\n"
         "rotate among copies that together exceed the L2 cache three times over. End-to-end time adds\n"
         "the upload and download (pinned host memory). Without a CUDA device the CPU methods still run.\n";
}

BenchOptions parse_bench_options(int argc, const char* const* argv) {
  BenchOptions options;
  ArgReader reader(argc, argv);
  std::string arg;
  bool kernels_given = false, sigmas_given = false, border_given = false;
  std::vector<std::string> given;  // every option, to refuse those the chosen run ignores
  while (reader.next(arg)) {
    if (ArgReader::is_option(arg)) given.push_back(arg);
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    } else if (arg == "--sizes") {
      options.sizes = parse_list<int>(arg, reader.value(arg), parse_size_item);
    } else if (arg == "--kernels") {
      options.kernels = parse_list<int>(arg, reader.value(arg), parse_kernel_item);
      kernels_given = true;
    } else if (arg == "--sigmas") {
      options.sigmas = parse_list<double>(arg, reader.value(arg), parse_sigma_item);
      sigmas_given = true;
    } else if (arg == "--truncate") {
      options.truncate = parse_double(arg, reader.value(arg));
      if (options.truncate < kMinTruncate || options.truncate > kMaxTruncate)
        throw UsageError("--truncate: must be within [0.5, 10] (SciPy's default is 4)");
    } else if (arg == "--formats") {
      options.formats = parse_list<PixelFormat>(arg, reader.value(arg), parse_format_item);
    } else if (arg == "--methods") {
      options.methods = parse_list<std::string>(arg, reader.value(arg), parse_method_item);
    } else if (arg == "--border") {
      options.border = parse_border(arg, reader.value(arg));
      border_given = true;
    } else if (arg == "--sigma-sweep") {
      options.sigma_sweep = true;
    } else if (arg == "--sweep-formats") {
      options.sweep_formats = parse_list<PixelFormat>(arg, reader.value(arg), parse_format_item);
    } else if (arg == "--sweep-sizes" || arg == "--sweep-size") {
      options.sweep_sizes = parse_list<int>(arg, reader.value(arg), parse_size_item);
    } else if (arg == "--scaling-sizes") {
      options.scaling_sizes = parse_list<int>(arg, reader.value(arg), parse_size_item);
    } else if (arg == "--sweep-sigmas") {
      options.sweep_sigmas = parse_list<double>(arg, reader.value(arg), parse_sigma_item);
    } else if (arg == "--signals") {
      options.signals = true;
    } else if (arg == "--signal-lengths") {
      options.signal_log2_lengths = parse_list<int>(arg, reader.value(arg), parse_log2_length_item);
    } else if (arg == "--signal-radii") {
      options.signal_radii = parse_list<int>(arg, reader.value(arg), parse_radius_item);
    } else if (arg == "--lut") {
      options.lut = true;
    } else if (arg == "--lut-radii") {
      options.lut_radii = parse_list<int>(arg, reader.value(arg), parse_radius_item);
    } else if (arg == "--unrolled") {
      options.unrolled = true;
    } else if (arg == "--unrolled-kernels") {
      options.unrolled_kernels = parse_list<int>(arg, reader.value(arg), parse_kernel_item);
    } else if (arg == "--pooling") {
      options.pooling = true;
    } else if (arg == "--custom-kernels") {
      options.custom_kernels = true;
    } else if (arg == "--technique-size") {
      options.technique_size = parse_size_item(arg, reader.value(arg));
    } else if (arg == "--no-main") {
      options.main_section = false;
    } else if (arg == "--out") {
      options.out_dir = reader.value(arg);
      if (options.out_dir.empty()) throw UsageError("--out: the folder name is empty");
    } else if (arg == "--overwrite") {
      options.overwrite = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--cpu-cap-seconds") {
      options.timing.cpu_cap_seconds = parse_positive(arg, reader.value(arg));
    } else if (arg == "--gpu-cap-ms") {
      options.timing.gpu_cap_ms = parse_positive(arg, reader.value(arg));
    } else if (arg == "--budget-seconds") {
      options.timing.budget_seconds = parse_positive(arg, reader.value(arg));
    } else if (arg == "--no-plot") {
      options.plot = false;
    } else if (arg == "--codecs") {
      options.codec_images = parse_list<std::string>(arg, reader.value(arg), parse_method_item);
    } else if (arg == "--sequence") {
      options.sequence = true;
    } else if (arg == "--sequence-sizes") {
      options.sequence_sizes = parse_list<std::pair<int, int>>(arg, reader.value(arg), parse_sequence_size);
      options.sequence = true;
    } else if (arg == "--sequence-history") {
      options.sequence_history = parse_int(arg, reader.value(arg), 1, 64);
      options.sequence = true;
    } else if (arg == "--sequence-paths") {
      options.sequence_backends = parse_list<std::string>(arg, reader.value(arg), [](std::string_view flag, std::string_view item) {
        if (item != "gpu" && item != "cpu")
          throw UsageError(std::string(flag) + ": unknown path '" + std::string(item) + "'; use gpu, cpu or gpu,cpu");
        return std::string(item);
      });
      options.sequence = true;
    } else if (arg == "--batch") {
      options.batch.enabled = true;
    } else if (arg == "--batch-images") {
      options.batch.images = parse_int(arg, reader.value(arg), 1, 100000);
    } else if (arg == "--batch-size") {
      const auto [width, height] = parse_size(arg, reader.value(arg));
      options.batch.width = width;
      options.batch.height = height;
    } else if (arg == "--batch-kernel") {
      options.batch.kernel = parse_kernel_item(arg, reader.value(arg));
    } else if (arg == "--batch-sigma") {
      options.batch.sigma = parse_sigma_item(arg, reader.value(arg));
    } else if (arg == "--batch-method") {
      options.batch.gpu_method = reader.value(arg);
    } else if (arg == "--batch-configs") {
      options.batch.configs = parse_list<std::string>(arg, reader.value(arg), parse_method_item);
      for (const std::string& name : options.batch.configs)
        if (std::find(batch_config_names().begin(), batch_config_names().end(), name) == batch_config_names().end())
          throw UsageError("--batch-configs: unknown configuration '" + name + "'; see --help");
    } else if (arg == "--batch-dir") {
      options.batch.work_dir = reader.value(arg);
      if (options.batch.work_dir.empty()) throw UsageError("--batch-dir: the folder name is empty");
    } else if (arg == "--threads") {
      options.batch.threads = parse_int(arg, reader.value(arg), 1, 4096);
    } else if (arg == "--make-image") {
      const auto [width, height] = parse_size(arg, reader.value(arg));
      options.make_image_width = width;
      options.make_image_height = height;
      options.make_image_path = reader.value(arg);
      if (static_cast<long long>(width) * height > kMaxPixels)
        throw UsageError("--make-image: " + std::to_string(width) + "x" + std::to_string(height) +
                         " is more than the 2^30 pixels gausslab filters");
    } else if (ArgReader::is_option(arg)) {
      throw UsageError("unknown option '" + arg + "'; see gausslab-bench --help");
    } else {
      throw UsageError("unexpected argument '" + arg + "'; gausslab-bench takes only options (see --help)");
    }
  }
  check_flags_apply(given, options);
  if (sigmas_given && !kernels_given) options.kernels.clear();
  if (border_given) options.batch.border = options.border;
  if (!options.main_section && !options.signals && !options.lut && !options.unrolled && !options.pooling &&
      !options.custom_kernels && !options.sigma_sweep && !options.sequence && !options.batch.enabled)
    throw UsageError(
        "--no-main leaves nothing to measure; add --signals, --lut, --unrolled, --pooling, --custom-kernels or "
        "--sigma-sweep");
  if (options.quick) {
    TimingPolicy& t = options.timing;
    t.warmup_runs = 1;
    t.min_runs = 3;
    t.max_runs = 10;
    t.target_seconds = 0.05;
    t.end_to_end_runs = 1;
    t.cpu_max_runs = 3;
    t.cpu_target_seconds = 0.2;
  }
  return options;
}

}  // namespace gausslab
