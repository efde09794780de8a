#include "sequence_options.hpp"

#include <cstdio>
#include <limits>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

namespace {
std::string format_default(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}
}  // namespace

std::string sequence_usage(const std::string& method_ids) {
  const SequenceSettings s;
  const SyntheticSpec y;
  return "gausslab-sequence: spatio-temporal whitening of an image sequence. Each frame's background\n"
         "is predicted from the N previous frames, weighted by a polynomial in their shifts against\n"
         "the first frame, and subtracted: what is left is the noise and what moves or changes\n"
         "(a faint moving target against the sky).\n"
         "\n"
         "usage:\n"
         "  gausslab-sequence INPUT --out-dir OUT [options]\n"
         "  gausslab-sequence --synthetic --out-dir OUT [synthetic options] [options]\n"
         "\n"
         "INPUT is a folder of frames (PNG 8 or 16 bit, JPEG, BMP, TGA, PGM/PPM, GIF, ...; taken in natural\n"
         "order, frame_2 before frame_10), several frame files (in the order given), or a video file.\n"
         "Colour frames become grey (Rec. 709 luminance).\n"
         "\n"
         "  --out-dir OUT          where the results go (created when missing):\n"
         "                         OUT/shifts.csv    frame,dx,dy: each frame's shift against the first\n"
         "                                           (a feature at (x, y) in frame 0 is at (x+dx, y+dy));\n"
         "                                           nan where none could be estimated\n"
         "                         OUT/whitened.npy  float32, frames x height x width; zero for the first\n"
         "                                           N frames (the history fills) and skipped frames\n"
         "  --history N            previous frames that predict the background, 1.." +
         std::to_string(seq::kMaxHistory) + " (default " + std::to_string(s.history) +
         ")\n"
         "  --degree n             degree of the weights' polynomial in the shifts, 0.." +
         std::to_string(seq::kMaxDegree) + " (default " + std::to_string(s.degree) +
         ")\n"
         "  --gamma G              regularisation, > 0 (default " +
         format_default(s.gamma) +
         "): small matches the shift moments exactly,\n"
         "                         large tends to the plain mean of the history\n"
         "  --search-radius K      coarse integer shift search, +-K px (default " +
         std::to_string(s.search_radius) +
         ")\n"
         "  --method ID --sigma S  optional Gaussian pre-filter with any registered method: " +
         method_ids +
         "\n"
         "                         (--border, --truncate as in gausslab-filter)\n"
         "  --backend auto|gpu|cpu where to run (default auto: the GPU when there is one)\n"
         "  --previews             also OUT/previews/frame_NNNNN.png and whitened_NNNNN.png (8-bit;\n"
         "                         whitened: mid grey is zero, black/white +-4 robust deviations)\n"
         "  --preview-every K      previews of every K-th frame only\n"
         "  --max-frames F         process the first F frames only\n"
         "  --overwrite            replace existing outputs (never done otherwise)\n"
         "  --quiet                no progress bar or summary; errors and warnings only\n"
         "\n"
         "synthetic sky (--synthetic; also writes OUT/true_shifts.csv and OUT/target_track.csv):\n"
         "  --frames F (" +
         std::to_string(y.frames) + ")  --size WxH (" + std::to_string(y.width) + "x" + std::to_string(y.height) +
         ")  --seed S (" + std::to_string(y.seed) +
         ")\n"
         "  --noise F              noise deviation as a fraction of the background (" +
         format_default(y.noise) +
         ")\n"
         "  --jitter J             shifts uniform in +-J px (" +
         format_default(y.jitter) +
         ")\n"
         "  --target-brightness B  the moving target's peak, in noise deviations (" +
         format_default(y.target_brightness) +
         ")\n"
         "  --target-speed V       px per frame (" +
         format_default(y.target_speed) +
         ")\n"
         "  --star-density D       stars per px^2 (" +
         format_default(y.star_density) +
         ")\n"
         "  --save-frames          also the frames as OUT/frames/frame_NNNNN.png (16-bit grey)\n"
         "\n"
         "Outputs are written to a temporary name and moved into place: never a partial file.\n"
         "A frame that cannot be read, has another size than the first, or has no 2D structure (a flat\n"
         "frame: its shift system is singular) gets a message; the run goes on without it.\n"
         "\n"
         "exit status: 0 done; 1 some frames could not be used or an output was not written (the rest\n"
         "is done); 2 bad arguments or an input that cannot be opened (nothing was written).\n";
}

namespace {

int int_option(ArgReader& reader, const std::string& flag, int min, int max) {
  return parse_int(flag, reader.value(flag), min, max);
}

double double_option(ArgReader& reader, const std::string& flag) { return parse_double(flag, reader.value(flag)); }

}  // namespace

SequenceOptions parse_sequence_options(int argc, const char* const* argv) {
  SequenceOptions o;
  ArgReader reader(argc, argv);
  std::string arg;
  bool synthetic_option = false;
  while (reader.next(arg)) {
    if (arg == "-h" || arg == "--help") {
      o.help = true;
      return o;
    } else if (arg == "--out-dir") {
      if (!o.out_dir.empty()) throw UsageError("--out-dir is given twice; give one folder");
      o.out_dir = reader.value(arg);
      if (o.out_dir.empty()) throw UsageError("--out-dir: the folder name is empty");
    } else if (arg == "--history") {
      o.settings.history = int_option(reader, arg, 1, seq::kMaxHistory);
    } else if (arg == "--degree") {
      o.settings.degree = int_option(reader, arg, 0, seq::kMaxDegree);
    } else if (arg == "--gamma") {
      o.settings.gamma = double_option(reader, arg);
    } else if (arg == "--search-radius") {
      o.settings.search_radius = int_option(reader, arg, 0, seq::kMaxSearchRadius);
    } else if (arg == "--method") {
      o.method_id = reader.value(arg);
    } else if (arg == "--sigma") {
      o.params.sigma = double_option(reader, arg);
      o.sigma_given = true;
    } else if (arg == "--border") {
      o.params.border = parse_border(arg, reader.value(arg));
    } else if (arg == "--truncate") {
      o.params.truncate = double_option(reader, arg);
    } else if (arg == "--backend") {
      const std::string b = reader.value(arg);
      if (b == "auto") o.backend = SequenceOptions::Backend::Auto;
      else if (b == "gpu") o.backend = SequenceOptions::Backend::Gpu;
      else if (b == "cpu") o.backend = SequenceOptions::Backend::Cpu;
      else throw UsageError("--backend: unknown '" + b + "'; use auto, gpu or cpu");
    } else if (arg == "--previews") {
      o.previews = true;
    } else if (arg == "--preview-every") {
      o.preview_every = int_option(reader, arg, 1, std::numeric_limits<int>::max());
      o.previews = true;
    } else if (arg == "--max-frames") {
      o.max_frames = int_option(reader, arg, 1, std::numeric_limits<int>::max());
    } else if (arg == "--overwrite") {
      o.overwrite = Overwrite::Allowed;
    } else if (arg == "--quiet" || arg == "-q") {
      o.quiet = true;
    } else if (arg == "--synthetic") {
      o.synthetic = true;
    } else if (arg == "--frames") {
      o.synthetic_spec.frames = int_option(reader, arg, 1, 100000);
      synthetic_option = true;
    } else if (arg == "--size") {
      const auto [w, h] = parse_size(arg, reader.value(arg));
      o.synthetic_spec.width = w;
      o.synthetic_spec.height = h;
      synthetic_option = true;
    } else if (arg == "--seed") {
      o.synthetic_spec.seed = static_cast<std::uint64_t>(int_option(reader, arg, 0, std::numeric_limits<int>::max()));
      synthetic_option = true;
    } else if (arg == "--noise") {
      o.synthetic_spec.noise = double_option(reader, arg);
      synthetic_option = true;
    } else if (arg == "--jitter") {
      o.synthetic_spec.jitter = double_option(reader, arg);
      synthetic_option = true;
    } else if (arg == "--target-brightness") {
      o.synthetic_spec.target_brightness = double_option(reader, arg);
      synthetic_option = true;
    } else if (arg == "--target-speed") {
      o.synthetic_spec.target_speed = double_option(reader, arg);
      synthetic_option = true;
    } else if (arg == "--star-density") {
      o.synthetic_spec.star_density = double_option(reader, arg);
      synthetic_option = true;
    } else if (arg == "--save-frames") {
      o.save_frames = true;
      synthetic_option = true;
    } else if (ArgReader::is_option(arg)) {
      throw UsageError("unknown option '" + arg + "'; see gausslab-sequence --help");
    } else {
      o.inputs.push_back(arg);
    }
  }
  if (o.synthetic && !o.inputs.empty())
    throw UsageError("--synthetic makes its own frames: give no INPUT with it (got '" + o.inputs[0] + "')");
  if (!o.synthetic && synthetic_option)
    throw UsageError("--frames, --size, --seed, --noise, --jitter, --target-*, --star-density and --save-frames "
                     "describe the synthetic sky: add --synthetic");
  if (!o.synthetic && o.inputs.empty())
    throw UsageError("no input given; usage: gausslab-sequence INPUT --out-dir OUT (or --synthetic --out-dir OUT)");
  if (o.out_dir.empty()) throw UsageError("no output folder given; add --out-dir OUT");
  if (std::string problem = validate(o.settings); !problem.empty()) throw UsageError(problem);
  if (o.synthetic)
    if (std::string problem = validate(o.synthetic_spec); !problem.empty()) throw UsageError(problem);
  if (o.sigma_given && o.method_id.empty())
    throw UsageError("--sigma sets the pre-filter: add --method ID (gausslab-filter --list-methods shows them)");
  if (!o.method_id.empty()) {
    if (!o.sigma_given) throw UsageError("--method " + o.method_id + " needs --sigma S (pixels, 0.1 to 200)");
    if (std::string problem = validate(o.params); !problem.empty()) throw UsageError(problem);
  }
  return o;
}

}  // namespace gausslab
