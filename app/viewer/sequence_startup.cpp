// The sequence mode's checks before the first frame: every problem is a StartupError (exit 2)
// that names it.
#include "viewer/sequence_startup.hpp"

#include "gausslab/core/image_io.hpp"
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

StartupPlan plan_sequence_startup(const ViewerOptions& options) {
  StartupPlan plan;
  const Overwrite overwrite = options.overwrite ? Overwrite::Allowed : Overwrite::Never;
  for (const auto& [flag, path] : {std::pair{"--screenshot", options.screenshot}, {"--screenshot-view", options.screenshot_view}})
    if (!path.empty())
      if (std::string problem = check_output_path(path, overwrite); !problem.empty())
        throw StartupError(std::string(flag) + ": " + problem);
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
  try {
    plan.image_name = open_player_input(options.sequence_input, sequence_sky(options))->description();
  } catch (const SequenceInputError& error) {
    throw StartupError(error.what());
  }
  return plan;
}

}  // namespace gausslab
