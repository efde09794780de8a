// gausslab: the viewer. Parses the command line, checks everything it can before the first frame
// (bad input exits with status 2 and a message naming the problem), then runs the viewer.
#include <cstdio>

#include "gausslab/core/cli_args.hpp"
#include "program_version.hpp"
#include "viewer/standard_output.hpp"
#include "viewer/startup.hpp"
#include "viewer/viewer.hpp"
#include "viewer/viewer_options.hpp"

int main(int argc, char** argv) {
  using namespace gausslab;
  if (version_requested(argc, argv)) {
    std::fputs(version_text("gausslab").c_str(), stdout);
    return 0;
  }
  ViewerOptions options;
  try {
    options = parse_viewer_args(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "gausslab: %s\nRun 'gausslab --help' for the options.\n", error.what());
    return 2;
  }
  if (options.help) {
    std::fputs(viewer_usage().c_str(), stdout);
    return 0;
  }
  StartupPlan plan;
  try {
    plan = plan_startup(options);
  } catch (const StartupError& error) {
    std::fprintf(stderr, "gausslab: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: error while checking the input: %s\n", error.what());
    return 2;
  }
  if (options.to_standard_output()) {  // the picture's from here on; what is printed goes to stderr
    try {
      reserve_standard_output();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "gausslab: --screenshot -: %s\n", error.what());
      return 2;
    }
  }
  if (!plan.note.empty()) std::fprintf(stderr, "gausslab: note: %s\n", plan.note.c_str());
  try {
    Viewer viewer(options, std::move(plan));
    return viewer.run();
  } catch (const StartupError& error) {  // found once the OpenGL context told its limits
    std::fprintf(stderr, "gausslab: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "gausslab: error: %s\n", error.what());
    return 1;
  }
}
