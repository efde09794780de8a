#include "gausslab/batch/inputs.hpp"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gausslab/core/cli_args.hpp"
#include "gausslab/core/regular_file.hpp"

namespace gausslab {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

bool is_pattern(const std::string& item) { return item.find_first_of("*?[") != std::string::npos; }

std::uint64_t size_of(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

InputFile named_file(const std::string& path) { return {path, fs::path(path).stem().string(), size_of(path)}; }

// The folder's image files, sorted; their relative stems keep the subfolders.
void add_folder(const std::string& folder, bool recursive, std::vector<InputFile>& out,
                std::vector<std::string>& notes) {
  std::vector<fs::path> found;
  int skipped_folders = 0;
  std::error_code ec;
  const auto take = [&](const fs::directory_entry& entry) {
    std::error_code entry_ec;
    if (entry.is_regular_file(entry_ec) && has_image_extension(entry.path().string())) found.push_back(entry.path());
  };
  if (recursive) {
    for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      take(*it);
  } else {
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code entry_ec;
      if (it->is_directory(entry_ec))
        ++skipped_folders;
      else
        take(*it);
    }
  }
  if (ec) throw UsageError("cannot read the folder " + in_quotes(folder) + ": " + ec.message());
  if (found.empty())
    throw UsageError("the folder " + in_quotes(folder) + " holds no image file (.png, .jpg, .bmp, .tga, .pnm, ...)" +
                     (skipped_folders && !recursive ? "; add --recursive to take its subfolders too" : ""));
  if (skipped_folders)
    notes.push_back("the subfolders of " + in_quotes(folder) + " (" + std::to_string(skipped_folders) +
                    ") are skipped; add --recursive to take them too");
  std::sort(found.begin(), found.end());
  for (const fs::path& path : found) {
    fs::path relative = path.lexically_relative(folder);
    relative.replace_extension();
    out.push_back({path.string(), relative.string(), size_of(path.string())});
  }
}

void add_item(const std::string& item, const InputSpec& spec, std::vector<InputFile>& out,
              std::vector<std::string>& notes) {
  std::error_code ec;
  if (fs::is_directory(item, ec)) {
    add_folder(item, spec.recursive, out, notes);
    return;
  }
  if (is_pattern(item) && !fs::exists(item, ec)) {
    glob_t matches{};
    const int status = ::glob(item.c_str(), GLOB_MARK, nullptr, &matches);
    std::vector<std::string> paths(matches.gl_pathv, matches.gl_pathv + (status == 0 ? matches.gl_pathc : 0));
    ::globfree(&matches);
    if (paths.empty()) throw UsageError("no file matches " + in_quotes(item) + "; check the pattern and the folder");
    for (const std::string& path : paths) {  // GLOB_MARK marks folders with a trailing '/'
      if (!path.empty() && path.back() == '/')
        add_folder(path.substr(0, path.size() - 1), spec.recursive, out, notes);
      else
        out.push_back(named_file(path));
    }
    return;
  }
  out.push_back(named_file(item));
}

std::vector<std::string> read_list(std::istream& in) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::size_t last = line.find_last_not_of(" \t");
    lines.push_back(line.substr(first, last - first + 1));
  }
  return lines;
}

}  // namespace

bool has_image_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  static const char* const known[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm", ".pnm",
                                      ".pam", ".pbm", ".gif",  ".psd", ".hdr", ".pic", ".tif", ".tiff"};
  return std::find(std::begin(known), std::end(known), ext) != std::end(known);
}

std::vector<InputFile> expand_inputs(const InputSpec& spec, std::istream& standard_input,
                                     std::vector<std::string>& notes) {
  std::vector<InputFile> files;
  for (const std::string& item : spec.items) add_item(item, spec, files, notes);
  if (!spec.list_file.empty()) {
    std::vector<std::string> lines;
    if (spec.list_file == "-") {
      lines = read_list(standard_input);
    } else {
      // Core's opening rule first: a FIFO would block the open below forever, a device never end.
      if (std::string problem = regular_file_problem(spec.list_file, "lists"); !problem.empty())
        throw UsageError("--from-list: " + problem);
      std::ifstream list(spec.list_file);
      if (!list) throw UsageError("--from-list: cannot open " + in_quotes(spec.list_file) + "; check the path");
      lines = read_list(list);
    }
    if (lines.empty())
      throw UsageError("--from-list: " + (spec.list_file == "-" ? std::string("standard input") : in_quotes(spec.list_file)) +
                       " names no file (one path a line; blank lines and # comments are skipped)");
    for (const std::string& line : lines) add_item(line, spec, files, notes);
  }
  if (files.empty()) throw UsageError("no input given; name files, folders or patterns, or use --from-list FILE");
  return files;
}

}  // namespace gausslab
