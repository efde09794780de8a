// RunInputs: the files a run reads, by file identity and by resolved path, and the outputs that
// would replace one of them.
#include "gausslab/core/run_inputs.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

namespace gausslab {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

// The path as written, made absolute and normalised, symbolic links left as they are.
std::string lexical_path(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return (ec ? fs::path(path) : absolute).lexically_normal().string();
}

}  // namespace

std::string resolved_path(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path).lexically_normal().string();
  const fs::path canonical = fs::weakly_canonical(absolute, ec);
  return (ec || canonical.empty() ? absolute : canonical).lexically_normal().string();
}

void RunInputs::add(const std::string& path) {
  if (path.empty()) return;
  const std::size_t index = paths_.size();
  paths_.push_back(path);
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0)
    by_file_.emplace(FileId{static_cast<std::uint64_t>(status.st_dev), static_cast<std::uint64_t>(status.st_ino)}, index);
  by_resolved_path_.emplace(resolved_path(path), index);
}

void RunInputs::add(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) add(path);
}

std::optional<InputClash> RunInputs::clash(const std::string& output) const {
  if (paths_.empty() || output.empty()) return std::nullopt;
  const std::string resolved = resolved_path(output);
  std::optional<std::size_t> found;
  bool same_resolved_path = false;
  struct stat status {};
  if (::stat(output.c_str(), &status) == 0) {
    const auto it = by_file_.find(
        FileId{static_cast<std::uint64_t>(status.st_dev), static_cast<std::uint64_t>(status.st_ino)});
    if (it != by_file_.end()) {
      found = it->second;
      same_resolved_path = resolved == resolved_path(paths_[it->second]);
    }
  }
  if (!found) {
    const auto it = by_resolved_path_.find(resolved);
    if (it == by_resolved_path_.end()) return std::nullopt;
    found = it->second;
    same_resolved_path = true;
  }
  const std::string& input = paths_[*found];
  InputClash result{input, {}};
  if (!same_resolved_path)
    result.how = "a hard link to it";
  else if (lexical_path(output) != lexical_path(input))
    result.how = "through a symbolic link";
  return result;
}

std::string RunInputs::refusal(const std::string& output, const std::string& program, const std::string& advice) const {
  const std::optional<InputClash> found = clash(output);
  if (!found) return {};
  std::string message = in_quotes(output) + " would replace the input " + in_quotes(found->input);
  if (!found->how.empty()) message += " (" + found->how + ")";
  return message + "; " + program + " never writes over an input of its run, even with --overwrite: " + advice;
}

}  // namespace gausslab
