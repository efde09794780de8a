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
         "the reference (or from their correlation matrix), and subtracted: what is left is the noise\n"
         "and what moves or changes (a faint moving target against the sky). Frames that do not belong\n"
         "are left out, a scene cut starts the history again, and targets are removed from the frames\n"
         "before they predict later ones.\n"
         "\n"
         "usage:\n"
         "  gausslab-sequence INPUT --out-dir OUT [options]\n"
         "  gausslab-sequence --synthetic --out-dir OUT [synthetic options] [options]\n"
         "\n"
         "INPUT is a folder of frames (every image file gausslab reads: PNG, TIFF, FITS, OpenEXR, PFM, NPY,\n"
         "JPEG, BMP, TGA, PNM, GIF; taken in natural order, frame_2 before frame_10), several frame files\n"
         "(in the order given), or a video file. Frames keep the file's depth; colour becomes grey (Rec. 709\n"
         "luminance). Integer frames are read as fractions of full scale: 8-bit levels / 255, 16-bit levels\n"
         "/ 65535 (the synthetic sky is made in those units); float frames (a FITS sky in counts) as they are.\n"
         "\n"
         "  --out-dir OUT          where the results go (created when missing):\n"
         "                         OUT/shifts.csv    frame,dx,dy in px: each frame's shift against its\n"
         "                                           segment's reference (the first frame, or the first of\n"
         "                                           a scene after a cut): a feature at (x, y) there is at\n"
         "                                           (x+dx, y+dy); nan where none was estimated\n"
         "                         OUT/frames.csv    frame,name,verdict,segment,match,residual,residual_ratio,\n"
         "                                           tail: what became of each frame (verdict: used,\n"
         "                                           reference, scene-cut, no-match, rejected, flat,\n"
         "                                           unmatched-reference, unreadable, other size), its\n"
         "                                           segment (from 1), the coarse match's significance\n"
         "                                           (standard deviations of the correlation surface), the\n"
         "                                           whitened frame's robust deviation (the frames' units),\n"
         "                                           that against the history's, and the fraction of its\n"
         "                                           pixels beyond 5 robust deviations\n"
         "                         OUT/whitened.npy  float32, frames x height x width, in the frames' units\n"
         "                                           (fractions of full scale: a 16-bit frame's levels /\n"
         "                                           65535); zero for the first N frames of each segment\n"
         "                                           (the history fills) and for frames left out\n"
         "  --history N            previous frames that predict the background, 1.." +
         std::to_string(seq::kMaxHistory) + " (default " + std::to_string(s.history) +
         ")\n"
         "  --weights polynomial|correlation\n"
         "                         polynomial (default): a polynomial of degree n in the frames' shifts;\n"
         "                         correlation: the least-squares fit of the frame by its history, from\n"
         "                         the history's correlation matrix (regularised by gamma)\n"
         "  --degree n             degree of the weights' polynomial in the shifts, 0.." +
         std::to_string(seq::kMaxDegree) + " (default " + std::to_string(s.degree) +
         ")\n"
         "  --gamma G              regularisation, > 0 (default " +
         format_default(s.gamma) +
         "): polynomial: small matches the shift moments\n"
         "                         exactly, large tends to the plain mean; correlation: G x the matrix's\n"
         "                         mean diagonal is added to it\n"
         "  --search-radius K      the integer search around the coarse estimate, +-K px (default " +
         std::to_string(s.search_radius) +
         "; at least\n"
         "                         one coarse pixel); the coarse search covers every shift up to half the frame\n"
         "  --min-match Z          a frame must match its reference with this significance (default " +
         format_default(s.min_match) +
         ")\n"
         "  --max-residual R       a frame whose whitened residual is more than R times the history's is\n"
         "                         left out (default " +
         format_default(s.max_residual) +
         ")\n"
         "  --target-threshold K   targets (whitened values above K robust deviations, and the 3 px around)\n"
         "                         are replaced by the prediction before the frame predicts later ones\n"
         "                         (default " +
         format_default(s.target_threshold) +
         "; 0: keep them in the history)\n"
         "  --strict               a frame left out or a scene cut is an error: exit status 1 (the run\n"
         "                         goes on and writes everything)\n"
         "  --method ID --sigma S  optional Gaussian pre-filter with any registered method: " +
         method_ids +
         "\n"
         "                         (--border, --truncate as in gausslab-filter)\n"
         "  --backend auto|gpu|cpu where to run (default auto: the GPU when there is one)\n"
         "  --previews             also OUT/previews/frame_NNNNN.png and whitened_NNNNN.png (8-bit grey;\n"
         "                         frames stretched between their 1st and 99.5th percentiles; whitened:\n"
         "                         mid grey is zero, black/white -/+4 robust deviations)\n"
         "  --preview-every K      previews of every K-th frame only\n"
         "  --max-frames F         process the first F frames only\n"
         "  --overwrite            replace existing outputs (never done otherwise)\n"
         "  --quiet                no progress bar or summary; errors and warnings only\n"
         "\n"
         "synthetic sky (--synthetic; also writes OUT/true_shifts.csv, frame,dx,dy in px, and\n"
         "OUT/target_track.csv, frame,x,y in px, peak in fractions of full scale, inside 0/1):\n"
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
         "  --save-frames          also the frames as OUT/frames/frame_NNNNN.png (16-bit grey: value x 65535)\n"
         "\n"
         "Outputs are written to a temporary name and moved into place: never a partial file.\n"
         "A frame that cannot be read or has another size than the first gets a message and is skipped.\n"
         "A frame that does not belong is named and left out of the history: one without 2D structure (a\n"
         "flat frame), one that matches no reference (a garbage frame), or one whose residual is far above\n"
         "the history's. A frame that does not match the reference, but that the next frame matches, is a\n"
         "scene cut: it becomes the reference of a new segment and the history starts again.\n"
         "\n"
         "exit status: 0 done; 1 a frame could not be read or had another size, no frame could be the\n"
         "reference (all flat), an output was not written, too few frames to whiten, or with --strict a\n"
         "frame was left out or the scene changed (the rest is done); 2 bad arguments or an input that cannot\n"
         "be opened (nothing was written).\n";
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
    } else if (arg == "--weights") {
      const std::string m = reader.value(arg);
      if (m == "polynomial") o.settings.weights = WeightMethod::Polynomial;
      else if (m == "correlation") o.settings.weights = WeightMethod::Correlation;
      else throw UsageError("--weights: unknown '" + m + "'; use polynomial or correlation");
    } else if (arg == "--min-match") {
      o.settings.min_match = double_option(reader, arg);
    } else if (arg == "--max-residual") {
      o.settings.max_residual = double_option(reader, arg);
    } else if (arg == "--target-threshold") {
      o.settings.target_threshold = double_option(reader, arg);
    } else if (arg == "--strict") {
      o.strict = true;
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
