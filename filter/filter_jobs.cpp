#include "filter_jobs.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "filter_signal.hpp"
#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/npy_io.hpp"
#include "gausslab/core/run_inputs.hpp"
#include "gausslab/cuda/device.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

// The size every method must accept (DESIGN: any size from 1×1); asked before any image is read so
// that a method refusing the parameters themselves (a radius beyond its limit) fails up front.
constexpr int kProbeSide = 64;

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

// A path's identity for comparisons: its resolved form (symbolic links and "..", as far as it exists).
std::string identity(const std::string& path) { return resolved_path(path); }

// A folder's identity without a trailing separator ("photos/" and "./photos" are "photos").
fs::path folder_identity(const std::string& folder) {
  fs::path resolved = identity(folder);
  if (!resolved.has_filename() && resolved.has_parent_path() && resolved != resolved.root_path())
    resolved = resolved.parent_path();
  return resolved;
}

bool is_inside(const fs::path& path, const fs::path& folder) {
  auto [f, p] = std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
  return f == folder.end() && p != path.end();
}

// --out-dir an input folder itself, or with --recursive a folder inside one: the outputs would go
// among the inputs, and the next run would take them as inputs (and refuse them only then, as
// outputs over inputs). Refused before the first run does any work.
void refuse_out_dir_among_inputs(const FilterOptions& options, const std::vector<InputFile>& inputs) {
  const fs::path out = folder_identity(options.out_dir);
  std::set<std::string> folders;
  for (const InputFile& input : inputs)
    if (!input.folder.empty()) folders.insert(input.folder);
  for (const std::string& folder : folders) {
    const fs::path in = folder_identity(folder);
    if (out == in)
      throw UsageError("--out-dir " + in_quotes(options.out_dir) + " is the input folder " + in_quotes(folder) +
                       ": the outputs would go among its images, and the next run would take them as inputs; "
                       "choose a folder outside it");
    if (options.recursive && is_inside(out, in))
      throw UsageError("--out-dir " + in_quotes(options.out_dir) + " is inside the input folder " + in_quotes(folder) +
                       ", which --recursive reads with all its subfolders: the outputs would be taken as inputs by "
                       "the next run; choose a folder outside " + in_quotes(folder));
  }
}

}  // namespace

// The output check for a single-file job: a .npy signal is written as .npy, an image as an image
// file (a 2D or 3D .npy too). check_output_path includes output_file_problem: what the writer
// would refuse only after the work (a name too long, a link to nothing); with --output-type, the
// format must hold that type (the input's own type is checked when it is read, before filtering).
std::string output_problem(const std::string& input, const std::string& output, const FilterOptions& options) {
  if (is_npy_signal(input)) {
    // A .npy whose header does not parse is neither signal nor image: its own problem comes first
    // (else a damaged file with an image output was told to give the output a .npy name).
    // Its header alone is read for that (the samples of a large file are not).
    if (std::filesystem::is_regular_file(input))
      if (std::string problem = npy_header_problem(input); !problem.empty()) return problem;
    return check_npy_output_path(output, options.overwrite);
  }
  SaveOptions save;
  save.overwrite = options.overwrite;
  if (!options.output_type) return check_output_path(output, save);
  return check_output_path(output, save, make_pixel_format(*options.output_type, 1));
}

MethodChoice resolve_signal_method(const FilterOptions& options) {
  const MethodChoice choice = options.method_id.empty()
                                  ? choose_signal_method(cuda_device_status().available, options.params)
                                  : MethodChoice{options.method_id, "chosen with --method"};
  const MethodEntry* entry = find_method(choice.id);
  if (!entry) throw UsageError("unknown method " + in_quotes(choice.id) + "; use one of: " + method_id_list());
  if (std::string reason = method_unavailable_reason(*entry); !reason.empty())
    throw UsageError("method " + in_quotes(choice.id) + " cannot run on this machine: " + reason +
                     "; choose a CPU method (cpu_openmp, cpu_separable)");
  const FilterProblem probe = signal_problem(kProbeSide, options.params);
  if (std::string reason = entry->create()->unsupported_reason(probe); !reason.empty())
    throw UsageError("method " + in_quotes(choice.id) + " refuses 1D signals (" + describe(probe.params) + "): " + reason);
  return choice;
}

MethodChoice resolve_method(const FilterOptions& options) {
  MethodChoice choice;
  if (options.method_id.empty()) {
    choice = choose_default_method(options.params, cuda_device_status().available);
  } else {
    choice = {options.method_id, "chosen with --method"};
  }
  const MethodEntry* entry = find_method(choice.id);
  if (!entry) throw UsageError("unknown method " + in_quotes(choice.id) + "; use one of: " + method_id_list());
  if (std::string reason = method_unavailable_reason(*entry); !reason.empty())
    throw UsageError("method " + in_quotes(choice.id) + " cannot run on this machine: " + reason +
                     "; choose a CPU method (cpu_openmp, cpu_separable)");
  const std::unique_ptr<Method> method = entry->create();
  const FilterProblem probe{kProbeSide, kProbeSide, PixelFormat::Rgba8, options.params};
  if (std::string reason = method->unsupported_reason(probe); !reason.empty())
    throw UsageError("method " + in_quotes(choice.id) + " refuses " + describe(options.params) + ": " + reason);
  return choice;
}

std::string batch_output_path(const std::string& relative_stem, const std::string& out_dir,
                              const std::string& extension) {
  return (fs::path(out_dir) / relative_stem).string() + extension;
}

std::vector<BatchJob> plan_filter_jobs(const FilterOptions& options, const std::vector<InputFile>& inputs) {
  std::vector<BatchJob> jobs;
  RunInputs run_inputs;  // core's rule: never an output over an input (symbolic and hard links too)
  for (const InputFile& input : inputs) run_inputs.add(input.path);

  if (!options.batch()) {
    // Before the existing-file check: with or without --overwrite, the answer is the same.
    if (std::string problem = run_inputs.refusal(options.output, "gausslab-filter", "give another output name");
        !problem.empty())
      throw UsageError(problem);
    if (std::string problem = output_problem(inputs.front().path, options.output, options);
        !problem.empty())
      throw UsageError(problem);
    jobs.push_back({inputs.front().path, options.output, inputs.front().size_bytes});
    return jobs;
  }

  refuse_out_dir_among_inputs(options, inputs);
  std::error_code ec;
  const bool folder_exists = fs::is_directory(options.out_dir, ec);
  if (!folder_exists && fs::exists(options.out_dir, ec))
    throw UsageError("the output folder " + in_quotes(options.out_dir) + " is a file, not a folder; choose another --out-dir");

  std::map<std::string, std::string> input_of_output;  // to find two inputs that share a name
  std::vector<std::string> existing;
  for (const InputFile& input : inputs) {
    const std::string output = batch_output_path(input.relative_stem, options.out_dir,
                                                 is_npy_path(input.path) ? ".npy" : options.batch_extension);
    const std::string key = identity(output);
    if (auto [it, inserted] = input_of_output.emplace(key, input.path); !inserted)
      throw UsageError(in_quotes(it->second) + " and " + in_quotes(input.path) + " would both be written to " +
                       in_quotes(output) + "; filter them in separate runs or rename one");
    if (std::string problem =
            run_inputs.refusal(output, "gausslab-filter", "choose another --out-dir or --format");
        !problem.empty())
      throw UsageError(problem);
    if (fs::is_directory(output, ec)) throw UsageError(in_quotes(output) + " is a folder; it cannot be an output file");
    // A name too long for the file system, a device: refused now, not after the work (existing
    // files are counted below).
    if (std::string problem = output_file_problem(output, Overwrite::Allowed); !problem.empty())
      throw UsageError(problem);
    if (options.overwrite == Overwrite::Never && (fs::exists(output, ec) || fs::is_symlink(output, ec))) {
      existing.push_back(output);
      continue;
    }
    jobs.push_back({input.path, output, input.size_bytes});
  }
  if (!existing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < existing.size() && i < 5; ++i) list += (i ? ", " : "") + in_quotes(existing[i]);
    if (existing.size() > 5) list += " and " + std::to_string(existing.size() - 5) + " more";
    throw UsageError(std::to_string(existing.size()) + " output file" + (existing.size() > 1 ? "s exist" : " exists") +
                     " already (" + list +
                     "); gausslab-filter never overwrites files: choose another --out-dir or pass --overwrite");
  }
  return jobs;
}

void create_output_folders(const FilterOptions& options, const std::vector<BatchJob>& jobs) {
  if (!options.batch()) return;
  std::set<fs::path> folders{fs::path(options.out_dir)};
  for (const BatchJob& job : jobs) folders.insert(fs::path(job.output).parent_path());
  for (const fs::path& folder : folders) {
    std::error_code ec;
    if (folder.empty() || fs::is_directory(folder, ec)) continue;
    fs::create_directories(folder, ec);
    if (ec) throw UsageError("cannot create the output folder " + in_quotes(folder.string()) + ": " + ec.message());
  }
}

}  // namespace gausslab
