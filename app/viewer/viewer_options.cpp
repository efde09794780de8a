#include "viewer/viewer_options.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "gausslab/core/cli_args.hpp"
#include "actions/actions.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/registry.hpp"
#include "viewer/display_options.hpp"
#include "viewer/standard_output.hpp"

namespace gausslab {

namespace {

CompareMode parse_display(std::string_view flag, std::string_view text) {
  for (int i = 0; i < static_cast<int>(CompareMode::Count); ++i)
    if (text == to_string(static_cast<CompareMode>(i))) return static_cast<CompareMode>(i);
  throw UsageError(std::string(flag) + ": unknown display '" + std::string(text) + "'; use a, b, split or diff");
}

OutputPath parse_path(std::string_view flag, std::string_view text) {
  if (auto path = output_path_from_string(text)) return *path;
  throw UsageError(std::string(flag) + ": unknown path '" + std::string(text) + "'; use interop, staging or cpu");
}

// --keys: every character must stand for a key (key_for_typed_character); one that does not is
// refused naming it and listing those that do (it used to be dropped without a word).
void check_typed_keys(const std::string& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto c = static_cast<unsigned char>(keys[i]);
    if (key_for_typed_character(c)) continue;
    std::string accepted;
    for (unsigned k = 32; k < 127; ++k)
      if (key_for_typed_character(k)) accepted += k == ' ' ? std::string(" Space") : " " + std::string(1, static_cast<char>(k));
    char code[8];
    std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(c));
    const std::string shown = c >= 32 && c < 127 ? "'" + std::string(1, static_cast<char>(c)) + "'" : "the byte " + std::string(code);
    throw UsageError("--keys: " + shown + " (character " + std::to_string(i + 1) + " of '" + keys +
                     "') stands for no key of the viewer; --keys takes these characters (an upper-case letter is "
                     "Shift and its key):" + accepted + " (gausslab --help says what each does)");
  }
}

}  // namespace

ViewerOptions parse_viewer_args(int argc, const char* const* argv) {
  ViewerOptions options;
  ArgReader reader(argc, argv);
  std::string arg;
  bool truncate_given = false, sequence_setting = false;
  // Every flag with a value is given once: a repeated one is refused with both values (the last
  // silently winning hid typos such as a second --sigma from a pasted command).
  std::map<std::string, std::string> given;
  const auto value = [&](const std::string& flag) {
    std::string text = reader.value(flag);
    const auto [first, fresh] = given.emplace(flag, text);
    if (!fresh)
      throw UsageError(flag + " is given twice ('" + first->second + "' and '" + text + "'); give it once");
    return text;
  };
  while (reader.next(arg)) {
    if (arg == "--help" || arg == "-h") {
      options.help = true;
    } else if (arg == "--method") {
      options.method_id = value(arg);
    } else if (arg == "--compare") {
      options.compare_id = value(arg);
    } else if (arg == "--compare-file") {
      options.compare_file = value(arg);
      if (options.compare_file.empty()) throw UsageError("--compare-file: give the path of an image file");
    } else if (arg == "--watch") {
      options.watch = true;
    } else if (arg == "--display") {
      options.display = parse_display(arg, value(arg));
      options.display_given = true;
    } else if (arg == "--sigma") {
      options.params.sigma = parse_double(arg, value(arg));
    } else if (arg == "--truncate") {
      options.params.truncate = parse_double(arg, value(arg));
      truncate_given = true;
    } else if (arg == "--border") {
      options.params.border = parse_border(arg, value(arg));
    } else if (arg == "--size") {
      std::tie(options.size_width, options.size_height) = parse_size(arg, value(arg));
      options.resize = true;
    } else if (arg == "--window") {
      std::tie(options.window_width, options.window_height) = parse_size(arg, value(arg));
      if (options.window_width > 16384 || options.window_height > 16384)
        throw UsageError("--window: at most 16384x16384");
    } else if (arg == "--offscreen") {
      options.offscreen = true;
    } else if (arg == "--frames") {
      options.frames = parse_int(arg, value(arg), 1, 1000000);
    } else if (arg == "--screenshot") {
      options.screenshot = value(arg);
      if (options.screenshot.empty()) throw UsageError("--screenshot: the file name is empty; give a name such as a.png");
    } else if (arg == "--screenshot-view") {
      options.screenshot_view = value(arg);
      if (options.screenshot_view.empty())
        throw UsageError("--screenshot-view: the file name is empty; give a name such as view.png");
    } else if (arg == "--screenshot-format") {
      const std::string name = value(arg);
      const std::optional<ImageFormat> format = image_format_from_string(name);
      if (!format) throw UsageError(arg + ": unknown format '" + name + "'; use one of " + image_format_list());
      options.screenshot_format = *format;
      options.screenshot_format_given = true;
    } else if (arg == "--overwrite") {
      options.overwrite = true;
    } else if (arg == "--save-folder") {
      options.save_folder = value(arg);
    } else if (arg == "--soak") {
      options.soak = parse_int(arg, value(arg), 1, 100000000);
    } else if (arg == "--events") {
      options.events = true;
    } else if (arg == "--script") {
      options.script = value(arg);
    } else if (arg == "--keys") {
      options.keys = value(arg);
      check_typed_keys(options.keys);
    } else if (arg == "--path") {
      options.best_path = parse_path(arg, value(arg));
    } else if (arg == "--sequence") {
      options.sequence_input = value(arg);
      if (options.sequence_input.empty()) throw UsageError("--sequence: give a folder, a video or 'synthetic'");
    } else if (arg == "--history") {
      options.sequence_history = parse_int(arg, value(arg), 1, 64);
      sequence_setting = true;
    } else if (arg == "--degree") {
      options.sequence_degree = parse_int(arg, value(arg), 0, 4);
      sequence_setting = true;
    } else if (arg == "--gamma") {
      options.sequence_gamma = parse_double(arg, value(arg));
      if (!(options.sequence_gamma > 0.0) || options.sequence_gamma > 1e6)
        throw UsageError("--gamma: must be in (0, 1e6]");
      sequence_setting = true;
    } else if (arg == "--exposure" || arg == "--offset" || arg == "--channel" || arg == "--transfer" || arg == "--range") {
      set_display_setting(options.display_transform, arg, arg.substr(2), value(arg));
    } else if (arg == "--colour-map") {
      options.display_transform.colour_map = true;
    } else if (ArgReader::is_option(arg)) {
      throw UsageError("unknown option '" + arg + "'");
    } else if (options.image_path.empty()) {
      options.image_path = arg;
    } else {
      throw UsageError("only one IMAGE may be given ('" + options.image_path + "' and '" + arg + "')");
    }
  }
  if (options.help) return options;

  if (std::string invalid = validate(options.params); !invalid.empty()) {
    FilterParams sigma_alone;
    sigma_alone.sigma = options.params.sigma;
    const char* flag = truncate_given && validate(sigma_alone).empty() ? "--truncate" : "--sigma";
    throw UsageError(std::string(flag) + ": " + invalid);
  }
  if ((options.frames > 0) + !options.script.empty() + (options.soak > 0) > 1)
    throw UsageError("--frames, --script and --soak each set the length of the run: give one of them");
  if (options.soak > 0) options.frames = options.soak;  // a soak is a run of N frames
  const bool automated = options.frames > 0 || !options.script.empty();
  if (options.offscreen && !automated)
    throw UsageError("--offscreen needs --frames N or --script FILE: an offscreen view cannot be used interactively");
  if (!automated && (!options.screenshot.empty() || !options.screenshot_view.empty()))
    throw UsageError("--screenshot and --screenshot-view need --frames N or --script FILE (in the window, save with Ctrl+S)");
  if (options.screenshot == "-" && options.screenshot_view == "-")
    throw UsageError("--screenshot - and --screenshot-view - both ask for standard output: one picture goes there");
  if (options.to_standard_output()) {
    if (std::string refused = standard_output_refusal(options.screenshot_format); !refused.empty())
      throw UsageError("--screenshot-format " + std::string(to_string(options.screenshot_format)) + ": " + refused);
    if (std::string refused = check_output_type(options.screenshot_format, PixelFormat::Rgba8); !refused.empty())
      throw UsageError("--screenshot-format " + std::string(to_string(options.screenshot_format)) + ": " + refused);
    if (options.events)
      throw UsageError("--events prints on standard output, which --screenshot - gives to the picture: give a file name");
  } else if (options.screenshot_format_given) {
    throw UsageError("--screenshot-format is for a screenshot written to standard output ('-'); a file's name "
                     "gives its format by the extension");
  }
  if (!options.screenshot.empty() && options.screenshot == options.screenshot_view)
    throw UsageError("--screenshot and --screenshot-view name the same file '" + options.screenshot + "'");
  if (!options.compare_file.empty() && !options.compare_id.empty())
    throw UsageError("--compare " + options.compare_id + " and --compare-file " + options.compare_file +
                     " both set slot B: give one of them");
  if (options.display_given && options.display != CompareMode::A && options.compare_id.empty() &&
      options.compare_file.empty())
    throw UsageError("--display " + std::string(to_string(options.display)) +
                     " shows method B: give it with --compare ID (or --compare original)");
  if ((!options.compare_id.empty() || !options.compare_file.empty()) && !options.display_given)
    options.display = CompareMode::Split;
  if (options.display_transform.colour_map && options.display_transform.channel == ChannelView::Rgb)
    throw UsageError("--colour-map colours one channel: add --channel r, g, b, a or luminance");
  if (sequence_setting && !options.sequence())
    throw UsageError("--history, --degree and --gamma belong to the sequence mode: add --sequence INPUT");
  if (options.sequence()) {
    if (!options.image_path.empty())
      throw UsageError("--sequence shows a sequence, not the picture '" + options.image_path + "': give one of them");
    if (!options.compare_file.empty() || options.watch)
      throw UsageError("--compare-file and --watch are for pictures; in the sequence mode B is the whitened frame");
    if (!options.compare_id.empty())
      throw UsageError("--compare is for pictures; in the sequence mode B is the whitened (or pre-filtered) frame");
    if (!options.display_given) options.display = CompareMode::Split;
    if (options.display_transform.range != RangeMode::Nominal)
      throw UsageError("--range is worked out from a picture's numbers; the sequence mode shows the nominal range");
  }
  return options;
}

int history_frames(const ViewerOptions& options) { return std::clamp(options.frames, 60, 5000); }

std::string viewer_usage() {
  std::string text =
      "usage: gausslab [IMAGE] [options]\n"
      "Blurs IMAGE live on the GPU (" + std::string(supported_input_formats()) + "; without IMAGE\n"
      "the built-in astronaut picture). A file dropped on the window goes into slot B (in the split\n"
      "view: the slot under the cursor) to be compared; Shift+drop opens it as the picture.\n"
      "(" + std::string(refused_input_formats()) + ")\n"
      "\n"
      "  --method ID            method A (default: auto, the method measured fastest on this GPU for the\n"
      "                         picture, sigma and format, from a calibration cached per GPU; without a\n"
      "                         CUDA device auto runs cpu_openmp, a fixed rule; the title, the slot's label\n"
      "                         and the summary's auto_runs= say what it ran, the machine panel why)\n"
      "  --compare ID           slot B: a method, 'original' (the unblurred picture) or 'exact' (the float64\n"
      "                         Gaussian); the summary line then has ab_max_abs, ab_mean_abs, ab_psnr\n"
      "  --compare-file PATH    slot B shows an image file (any type the readers take: 8/16-bit, half, float;\n"
      "                         1-4 channels) of the picture's size, compared as its own samples; reloaded\n"
      "                         when it changes (the Slots menu or a drop on A's half of the split puts one in A)\n"
      "  --watch                reload IMAGE when the file changes (the comparison runs again)\n"
      "  --display MODE         a, b, split or diff (default a; split when --compare is given)\n"
      + display_options_usage() +
      "  --sigma S              Gaussian sigma in pixels, 0.1 to 200 (default 2)\n"
      "  --truncate T           radius = floor(T * sigma + 0.5), T from 0.5 to 10 (default 4, as SciPy)\n"
      "  --border MODE          " + border_mode_list() + " (default reflect)\n"
      "  --size WxH             resample the picture to WxH first (e.g. 1920x1080, 3840x2160, 4096x4096)\n"
      "  --window WxH           window size, or the offscreen view's size (default 1280x800)\n"
      "  --path P               best output path to try: interop (default), staging or cpu\n"
      "  --offscreen            no window: OpenGL through EGL, drawing into a framebuffer (needs --frames)\n"
      "  --frames N             run N frames processing every frame, print one line of timings and the\n"
      "                         whole-image errors (unrounded, 8-bit levels), exit\n"
      "  --script FILE          replay timed actions (see docs/viewer.md), print frame-time percentiles\n"
      "  --screenshot PATH      after the run, save the full-resolution result A as 8-bit RGBA (.png,\n"
      "                         .jpg, .bmp, .tga, .pnm, ..., by the extension; of a 16-bit or float\n"
      "                         picture the display copy: gausslab-filter writes results in their own type)\n"
      "  --screenshot-view PATH after the run, save the rendered view with its overlay\n"
      "                         (PATH '-': either one to standard output, and the summary line to stderr)\n"
      "  --screenshot-format F  the format of a screenshot to standard output: png (default), pnm, bmp, tga,\n"
      "                         jpg, pfm or npy (tiff, exr and fits seek back while written: files only)\n"
      "  --overwrite            let the screenshots replace existing files\n"
      "  --keys TEXT            type these keys in the first frame (a letter or digit stands for its key,\n"
      "                         an upper-case letter for Shift+key; a character that stands for no\n"
      "                         key is refused, listing those that do), e.g. \"++m\"\n"
      "  --soak N               N frames cycling through every method (A and B), sigma, border, view,\n"
      "                         slot, image reload and window size; prints the device memory in use\n"
      "                         (cudaMemGetInfo) and the host RSS after one cycle and at the end\n"
      "  --save-folder DIR      where Ctrl+S and the other saves go (default: the folder chosen in the\n"
      "                         viewer, remembered between runs, else the working folder)\n"
      "  --events               print a line per frame ('gausslab-event: frame N'), per action and per\n"
      "                         message on stdout, for programs that drive the window and wait on it\n"
      "  --sequence INPUT       the sequence mode: a folder of frames, a video or 'synthetic'; A is the\n"
      "                         frame, B the whitened frame, the shifts are plotted over time; --size\n"
      "                         WxH sizes the synthetic sky, --method ID --sigma S pre-filter the frames\n"
      "  --history N, --degree n, --gamma G   the sequence's whitening (default 20, 2, 0.01)\n"
      "  --help                 this text\n"
      "  --version              the version, commit, CUDA runtime and driver, and the GPU\n"
      "\n"
      "methods: " + method_id_list() + "\n"
      "\nactions and keys (the same list as the menu and the help overlay, ? or F1):\n";
  text += help_text();
  text += "\nexit status: 0 done, 1 a failure while running, 2 bad arguments or input, 3 an automated run that\n"
      "finished after a method failed and another took its place (the summary's fallback= says which)\n";
  return text;
}

}  // namespace gausslab
