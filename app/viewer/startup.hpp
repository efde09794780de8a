#pragma once
// Everything checked before the first frame: the picture loads, the methods exist and can run
// here with these parameters, the screenshot files may be written. A problem is a StartupError
// (exit status 2) with a message that names it and what to do.
#include <memory>
#include <stdexcept>
#include <string>

#include "gausslab/core/image.hpp"
#include "gausslab/cuda/registry.hpp"
#include "viewer/picture_levels.hpp"
#include "viewer/script.hpp"
#include "viewer/viewer_options.hpp"

namespace gausslab {

class StartupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Empty when the registry entry can run on this machine along the best path allowed (GPU methods
// need a CUDA device and a path other than cpu); otherwise why not.
std::string method_blocked_reason(const MethodEntry& entry, OutputPath best_path);

// The built-in default picture (embedded at build time).
ImageRgba8 load_default_picture();
inline constexpr const char* kDefaultPictureName = "built-in astronaut picture";

struct StartupPlan {
  ImageRgba8 original;     // the picture as loaded (its 8-bit reduction, when the file holds more)
  std::shared_ptr<const PictureLevels> levels;  // the file's own samples when it holds more than 8 bits
  std::string image_name;  // its path, or kDefaultPictureName
  int method_a = 0;        // registry index
  int method_b = -1;       // registry index, kOriginalPicture or kExactGaussian
  std::vector<ScriptStep> script;  // --script, read and checked
  std::string note;        // a remark for stderr (e.g. the default method could not run)
};

class RunInputs;
// A --screenshot or --screenshot-view path: refused (StartupError) when it would replace one of
// the run's inputs (with or without --overwrite) or when save_image would refuse it.
void check_screenshot(const char* flag, const std::string& path, bool overwrite, const RunInputs& inputs);
// --script read and checked now (a typo is a message before the first frame, not a step skipped
// later); none when not given. Throws StartupError.
std::vector<ScriptStep> startup_script(const ViewerOptions& options);

// Loads and checks everything; throws StartupError.
StartupPlan plan_startup(const ViewerOptions& options);
// The same for the sequence mode (sequence_startup.cpp): the input opens, the pre-filter can run.
StartupPlan plan_sequence_startup(const ViewerOptions& options);

}  // namespace gausslab
