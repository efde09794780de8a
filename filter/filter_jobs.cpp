#include "filter_jobs.hpp"

#include <filesystem>
#include <map>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

// The size every method must accept (DESIGN: any size from 1×1); asked before any image is read so
// that a method refusing the parameters themselves (a radius beyond its limit) fails up front.
constexpr int kProbeSide = 64;

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

}  // namespace

std::unique_ptr<Method> create_checked_method(const FilterOptions& options) {
  const MethodEntry* entry = find_method(options.method_id);
  if (!entry) throw UsageError("unknown method " + in_quotes(options.method_id) + "; use one of: " + method_id_list());
  if (std::string reason = method_unavailable_reason(*entry); !reason.empty())
    throw UsageError("method " + in_quotes(options.method_id) + " cannot run on this machine: " + reason +
                     "; choose a CPU method (cpu_openmp, cpu_separable)");
  std::unique_ptr<Method> method = entry->create();
  const FilterProblem probe{kProbeSide, kProbeSide, PixelFormat::Rgba8, options.params};
  if (std::string reason = method->unsupported_reason(probe); !reason.empty())
    throw UsageError("method " + in_quotes(options.method_id) + " refuses " + describe(options.params) + ": " + reason);
  return method;
}

std::string batch_output_path(const std::string& input, const std::string& out_dir, const std::string& extension) {
  return (fs::path(out_dir) / fs::path(input).stem()).string() + extension;
}

std::vector<FileJob> plan_filter_jobs(const FilterOptions& options) {
  std::vector<FileJob> jobs;
  if (!options.batch()) {
    if (std::string problem = check_output_path(options.output, options.overwrite); !problem.empty())
      throw UsageError(problem);
    jobs.push_back({options.inputs.front(), options.output});
    return jobs;
  }

  std::error_code ec;
  if (!fs::is_directory(options.out_dir, ec))
    throw UsageError("the output folder " + in_quotes(options.out_dir) +
                     (fs::exists(options.out_dir, ec)
                          ? " is not a folder"
                          : " does not exist; create it first (mkdir -p " + options.out_dir + ")"));

  std::map<std::string, std::string> input_of_output;  // to find two inputs that share a name
  std::vector<std::string> existing;
  for (const std::string& input : options.inputs) {
    const std::string output = batch_output_path(input, options.out_dir, options.batch_extension);
    const std::string key = fs::weakly_canonical(output, ec).string();
    if (auto [it, inserted] = input_of_output.emplace(key.empty() ? output : key, input); !inserted)
      throw UsageError(in_quotes(it->second) + " and " + in_quotes(input) + " would both be written to " +
                       in_quotes(output) + "; filter them in separate runs or rename one");
    if (options.overwrite == Overwrite::Never && fs::exists(output, ec)) {
      existing.push_back(output);
      continue;
    }
    if (std::string problem = check_output_path(output, options.overwrite); !problem.empty()) throw UsageError(problem);
    jobs.push_back({input, output});
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

}  // namespace gausslab
