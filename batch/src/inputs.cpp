#include "gausslab/batch/inputs.hpp"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

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
    throw UsageError("the folder " + in_quotes(folder) + " holds no image file (.png, .jpg, .tif, .exr, .fits, .npy, ...)" +
                     (skipped_folders && !recursive ? "; add --recursive to take its subfolders too" : ""));
  if (skipped_folders)
    notes.push_back("the subfolders of " + in_quotes(folder) + " (" + std::to_string(skipped_folders) +
                    ") are skipped; add --recursive to take them too");
  std::sort(found.begin(), found.end());
  for (const fs::path& path : found) {
    fs::path relative = path.lexically_relative(folder);
    relative.replace_extension();
    out.push_back({path.string(), relative.string(), size_of(path.string()), folder});
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

// A listed name is a path, never a pattern: a file, or a folder (its images).
void add_listed(const std::string& name, const InputSpec& spec, std::vector<InputFile>& out,
                std::vector<std::string>& notes) {
  std::error_code ec;
  if (fs::is_directory(name, ec))
    add_folder(name, spec.recursive, out, notes);
  else
    out.push_back(named_file(name));
}

const char* const kPipeHint =
    " (to read a list from a pipe or another program, give --from-list - and send it to standard input)";

std::vector<std::string> read_list_file(const InputSpec& spec, const ListLimits& limits) {
  const std::string source = in_quotes(spec.list_file);
  RegularFile file;
  try {  // core's opening rule: a FIFO would block forever, a device never end
    file = open_regular_file(spec.list_file, "lists");
  } catch (const InputFileError& error) {
    const std::string message = error.what();
    throw UsageError(message + (message.find("regular file") != std::string::npos ? kPipeHint : ""));
  }
  if (file.size_bytes() > limits.max_list_bytes)
    throw UsageError(source + " is " + std::to_string(file.size_bytes()) + " bytes, more than the " +
                     std::to_string(limits.max_list_bytes >> 20) + " MiB a list may hold; split it into several runs");
  return read_name_list(
      [&](char* buffer, std::size_t size) -> std::size_t {
        while (true) {
          const ssize_t n = ::read(file.fd(), buffer, size);
          if (n >= 0) return static_cast<std::size_t>(n);
          if (errno != EINTR) throw UsageError("cannot read " + source + ": " + std::strerror(errno));
        }
      },
      source, spec.list_format, limits);
}

std::vector<std::string> read_list_stream(std::istream& in, const InputSpec& spec, const ListLimits& limits) {
  return read_name_list(
      [&](char* buffer, std::size_t size) -> std::size_t {
        in.read(buffer, static_cast<std::streamsize>(size));
        if (in.bad()) throw UsageError("cannot read the list from standard input");
        return static_cast<std::size_t>(in.gcount());
      },
      "standard input", spec.list_format, limits);
}

}  // namespace

bool has_image_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  // The typed formats too: a folder of EXR, PFM, FITS or .npy files (2D/3D arrays are images, 1D
  // ones signals) is a batch like any other.
  static const char* const known[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm", ".pnm",
                                      ".pam", ".pbm", ".gif",  ".psd", ".hdr", ".pic", ".tif", ".tiff",
                                      ".exr", ".pfm", ".fits", ".fit", ".fts", ".npy"};
  return std::find(std::begin(known), std::end(known), ext) != std::end(known);
}

std::vector<InputFile> expand_inputs(const InputSpec& spec, std::istream& standard_input,
                                     std::vector<std::string>& notes, const ListLimits& limits) {
  std::vector<InputFile> files;
  for (const std::string& item : spec.items) add_item(item, spec, files, notes);
  if (!spec.list_file.empty()) {
    std::vector<std::string> names;
    try {
      names = spec.list_file == "-" ? read_list_stream(standard_input, spec, limits) : read_list_file(spec, limits);
    } catch (const UsageError& error) {
      throw UsageError(std::string("--from-list: ") + error.what());
    }
    if (names.empty())
      throw UsageError("--from-list: " + (spec.list_file == "-" ? std::string("standard input") : in_quotes(spec.list_file)) +
                       " names no file (one path a line" +
                       (spec.list_format.comments ? std::string("; empty lines and # comments are skipped)")
                                                  : std::string("; empty lines are skipped)")));
    for (const std::string& name : names) add_listed(name, spec, files, notes);
  }
  if (files.empty()) throw UsageError("no input given; name files, folders or patterns, or use --from-list FILE");
  return files;
}

}  // namespace gausslab
