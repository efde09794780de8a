// The sequence mode's checks before the first frame: every problem is a StartupError (exit 2)
// that names it.
#include "viewer/sequence_startup.hpp"

#include "gausslab/core/run_inputs.hpp"
#include "viewer/startup.hpp"

namespace gausslab {

SyntheticSpec sequence_sky(const ViewerOptions& options) {
  SyntheticSpec spec;
  if (options.resize) {
    spec.width = options.size_width;
    spec.height = options.size_height;
  }
  spec.frames = 120;
  return spec;
}

PlayerSettings sequence_settings(const ViewerOptions& options) {
  PlayerSettings p;
  p.settings.history = options.sequence_history;
  p.settings.degree = options.sequence_degree;
  p.settings.gamma = options.sequence_gamma;
  p.prefilter_id = options.method_id;
  p.prefilter_params = options.params;
  return p;
}

std::string history_warning(int history, int frame_count) {
  if (frame_count <= 0 || history < frame_count) return {};
  return "the sequence has " + std::to_string(frame_count) + " frame(s) and the history " + std::to_string(history) +
         ": whitening needs at least " + std::to_string(history + 1) +
         " (the first fill the history), so looping refills it with the same frames and B goes flat" +
         (frame_count >= 2 ? "; use a history of " + std::to_string(frame_count - 1) + " or fewer" : std::string());
}

StartupPlan plan_sequence_startup(const ViewerOptions& options) {
  StartupPlan plan;
  if (options.resize && options.sequence_input != "synthetic")
    throw StartupError("--size sizes the synthetic sky (--sequence synthetic); frames from files keep their size");
  const PlayerSettings settings = sequence_settings(options);
  if (std::string problem = validate(settings.settings); !problem.empty()) throw StartupError(problem);
  if (!settings.prefilter_id.empty()) {
    const MethodEntry* entry = find_method(settings.prefilter_id);
    if (!entry)
      throw StartupError("--method: unknown pre-filter '" + settings.prefilter_id + "'; use one of " + method_id_list());
    if (std::string blocked = method_blocked_reason(*entry, options.best_path); !blocked.empty())
      throw StartupError("--method: " + settings.prefilter_id + " cannot run here: " + blocked);
  }
  RunInputs inputs;  // the frames (or the video) and the script: never written over, --overwrite or not
  try {
    const std::unique_ptr<FrameSource> source = open_player_input(options.sequence_input, sequence_sky(options));
    plan.image_name = source->description();
    inputs.add(source->files());
  } catch (const SequenceInputError& error) {
    throw StartupError(error.what());
  }
  if (options.sequence_input != "synthetic") inputs.add(options.sequence_input);
  inputs.add(options.script);
  check_screenshot("--screenshot", options.screenshot, options.overwrite, inputs);
  check_screenshot("--screenshot-view", options.screenshot_view, options.overwrite, inputs);
  plan.script = startup_script(options);  // as in the comparison mode
  return plan;
}

}  // namespace gausslab
