#include "viewer/startup.hpp"

#include "viewer/standard_output.hpp"

#include <filesystem>

#include "gausslab/core/image_io.hpp"
#include "gausslab/core/run_inputs.hpp"
#include "gausslab/cuda/device.hpp"
#include "viewer/frame_omissions.hpp"
#include "viewer/viewer_state.hpp"

namespace gausslab::embedded {
extern const unsigned char default_picture[];
extern const std::size_t default_picture_size;
}  // namespace gausslab::embedded

namespace gausslab {

namespace {

int registry_index(const std::string& id) {
  const auto& registry = method_registry();
  for (std::size_t i = 0; i < registry.size(); ++i)
    if (registry[i].info.id == id) return static_cast<int>(i);
  return -1;
}

// Empty when the method at `index` can run `problem` here.
std::string cannot_run_reason(int index, const FilterProblem& problem, OutputPath best_path) {
  // --path cpu runs auto in its CPU form (method_registry(false)).
  const MethodEntry& entry = method_registry(best_path != OutputPath::Cpu)[static_cast<std::size_t>(index)];
  if (std::string blocked = method_blocked_reason(entry, best_path); !blocked.empty()) return blocked;
  return entry.create()->unsupported_reason(problem);
}

int resolve_method(const std::string& flag, const std::string& id, const FilterProblem& problem, OutputPath best_path) {
  const int index = registry_index(id);
  if (index < 0)
    throw StartupError(flag + ": unknown method '" + id + "'; use one of " + method_id_list() +
                       (flag == "--compare" ? ", original or exact" : ""));
  if (std::string reason = cannot_run_reason(index, problem, best_path); !reason.empty())
    throw StartupError(flag + ": " + id + " cannot run here: " + reason);
  return index;
}

}  // namespace

std::vector<ScriptStep> startup_script(const ViewerOptions& options) {
  if (options.script.empty()) return {};
  try {
    return load_script(options.script);
  } catch (const std::exception& error) {
    throw StartupError(error.what());
  }
}

void check_screenshot(const char* flag, const std::string& path, bool overwrite, const RunInputs& inputs) {
  if (path.empty() || path == kStandardOutputName) return;  // standard output: checked by the options
  if (std::string problem = inputs.refusal(path, "gausslab", "give the screenshot another name"); !problem.empty())
    throw StartupError(std::string(flag) + ": " + problem);
  SaveOptions save;
  save.overwrite = overwrite ? Overwrite::Allowed : Overwrite::Never;
  // Screenshots are 8-bit; check_output_path includes output_file_problem (a name too long, a link to nothing).
  if (std::string problem = check_output_path(path, save, PixelFormat::Rgba8); !problem.empty())
    throw StartupError(std::string(flag) + ": " + problem);
}

std::string method_blocked_reason(const MethodEntry& entry, OutputPath best_path) {
  if (entry.info.backend == Backend::Cpu) return {};
  if (best_path == OutputPath::Cpu) return "the cpu path was chosen (--path cpu): GPU methods are off";
  return method_unavailable_reason(entry);
}

ImageRgba8 load_default_picture() {
  return reduce_to_rgba8(
             load_image_from_memory(embedded::default_picture, embedded::default_picture_size, kDefaultPictureName))
      .image;
}

StartupPlan plan_startup(const ViewerOptions& options) {
  try {
    frame_omissions();  // a measuring aid's bad value is said before anything runs
  } catch (const std::invalid_argument& error) {
    throw StartupError(error.what());
  }
  if (options.sequence()) return plan_sequence_startup(options);
  StartupPlan plan;
  // 1. The picture: a bad file is a clear message, never a crash.
  try {
    if (options.image_path.empty()) {
      plan.original = load_default_picture();
      plan.image_name = kDefaultPictureName;
    } else {
      const LoadedImage loaded = load_image(options.image_path);
      plan.original = reduce_to_rgba8(loaded).image;  // what the slots show
      plan.levels = picture_levels(loaded);           // what is measured, when more than 8 bits
      plan.image_name = options.image_path;
    }
  } catch (const ImageLoadError& error) {
    throw StartupError(error.what());
  }
  const int width = options.resize ? options.size_width : plan.original.width();
  const int height = options.resize ? options.size_height : plan.original.height();
  const FilterProblem problem{width, height, PixelFormat::Rgba8, options.params};
  if (std::string invalid = validate(problem); !invalid.empty()) throw StartupError(invalid);

  // 2. The output files, so a long run never ends in a refusal to save.
  RunInputs inputs;  // never written over, --overwrite or not
  inputs.add(options.image_path);
  inputs.add(options.script);
  inputs.add(options.compare_file);
  check_screenshot("--screenshot", options.screenshot, options.overwrite, inputs);
  check_screenshot("--screenshot-view", options.screenshot_view, options.overwrite, inputs);

  // 3. The methods.
  if (!options.method_id.empty()) {
    plan.method_a = resolve_method("--method", options.method_id, problem, options.best_path);
  } else {
    // auto first (the fastest measured here, or the CPU filter without a device), then any other.
    const bool gpu = options.best_path != OutputPath::Cpu && cuda_device_status().available;
    std::vector<int> candidates{registry_index("auto")};
    if (gpu)
      for (std::size_t i = 0; i < method_registry().size(); ++i)
        if (method_registry()[i].info.backend == Backend::Cuda && method_registry()[i].info.id != "auto")
          candidates.push_back(static_cast<int>(i));
    candidates.push_back(registry_index("cpu_openmp"));
    std::string refusals;
    plan.method_a = -1;
    for (int index : candidates) {
      if (index < 0) continue;
      const std::string reason = cannot_run_reason(index, problem, options.best_path);
      if (reason.empty()) {
        plan.method_a = index;
        break;
      }
      refusals += "\n  " + method_registry()[static_cast<std::size_t>(index)].info.id + ": " + reason;
    }
    if (plan.method_a < 0) throw StartupError("no method can run this picture with these parameters:" + refusals);
    if (!refusals.empty())
      plan.note = "using " + method_registry()[static_cast<std::size_t>(plan.method_a)].info.id +
                  "; methods tried first could not run:" + refusals;
  }
  plan.method_b = kOriginalPicture;
  if (options.compare_id == "exact")
    plan.method_b = kExactGaussian;
  else if (!options.compare_id.empty() && options.compare_id != "original")
    plan.method_b = resolve_method("--compare", options.compare_id, problem, options.best_path);
  if (!options.save_folder.empty()) {
    // A missing folder is made, as gausslab-filter's --out-dir is; a file of that name is refused.
    std::error_code error;
    if (!std::filesystem::is_directory(options.save_folder, error)) {
      if (std::filesystem::exists(options.save_folder, error))
        throw StartupError("--save-folder: '" + options.save_folder + "' is not a folder");
      std::filesystem::create_directories(options.save_folder, error);
      if (error)
        throw StartupError("--save-folder: cannot create the folder '" + options.save_folder + "': " + error.message());
    }
  }
  // 4. The script.
  plan.script = startup_script(options);
  return plan;
}

}  // namespace gausslab
