#include "viewer/automated_run.hpp"

#include <cstdio>

namespace gausslab {

namespace {

constexpr double kProgressEverySeconds = 3.0;

}  // namespace

AutomatedRun::AutomatedRun(const ViewerOptions& options, std::vector<ScriptStep> script)
    : frames_(options.frames), script_(std::move(script)), soak_(options.soak) {}

bool AutomatedRun::before_frame(int frame, double elapsed_s, double interval_ms, ViewerMode& mode,
                                GlSurface& surface, RollingMedian& frame_ms) {
  // Frame 0's interval is no frame's. Until the mode's first results are in, each frame moves the
  // start of the count on to itself; after such a start-up the first frame with results is not
  // counted either (the results came in during it), so every interval counted is that of a frame
  // drawn with results.
  if (!counting_ && frame > 0) {
    const bool warming = !scripted() && automated() && mode.starting() && elapsed_s < kSettleLimitSeconds;
    if (warming || counted_from_ > 0) counted_from_ = frame;  // counted_from_ > 0: there was a start-up
    counting_ = !warming;
  }
  if (frame > counted_from_) {
    frame_ms.add(interval_ms);
    if (scripted()) script_.add_frame_ms(interval_ms);
  }
  if (scripted() && !script_.run_due_steps(elapsed_s, mode)) return false;
  if (soak_.active()) soak_.step(frame, mode, surface);
  return true;
}

bool AutomatedRun::after_frame(int frame, ViewerMode& mode) {
  if (!automated()) return true;
  if (mode.failed()) return false;
  print_progress(scripted() ? script_.progress()
                            : "frame " + std::to_string(frame + 1) + " of " + std::to_string(frames_),
                 mode);
  return true;
}

void AutomatedRun::print_progress(const std::string& what, const ViewerMode& mode) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_progress_ < std::chrono::duration<double>(kProgressEverySeconds)) return;
  last_progress_ = now;
  const std::string busy = mode.progress();
  std::fprintf(stderr, "gausslab: %s%s%s\n", what.c_str(), busy.empty() ? "" : "; ", busy.c_str());
}

void AutomatedRun::print_reports(long long frames_drawn) const {
  if (scripted()) std::printf("%s\n", script_.report().c_str());
  if (soak_.active()) std::printf("%s\n", soak_.report(frames_drawn).c_str());
  std::fflush(stdout);
}

}  // namespace gausslab
