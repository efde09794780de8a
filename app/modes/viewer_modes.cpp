// The viewer's modes: the one place where a mode is chosen from the options. A new mode (e.g.
// image sequences) adds its class in its own files and one branch here.
#include "modes/comparison_mode.hpp"
#include "modes/sequence_mode.hpp"
#include "viewer/viewer_mode.hpp"

namespace gausslab {

std::unique_ptr<ViewerMode> make_viewer_mode(const ViewerOptions& options, StartupPlan plan, GlSurface& surface) {
  if (options.sequence()) return std::make_unique<SequenceMode>(options, surface);
  return std::make_unique<ComparisonMode>(options, std::move(plan), surface);
}

}  // namespace gausslab
