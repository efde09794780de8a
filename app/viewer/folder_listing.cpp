#include "viewer/folder_listing.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

bool readable_image_name(const std::string& name) {
  // The writable formats' extensions are the readers' too; GIF is read only.
  const std::string extension = lower(std::filesystem::path(name).extension().string());
  return image_format_from_path(name).has_value() || extension == ".gif" || extension == ".pbm";
}

FolderListing list_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  FolderListing listing;
  std::error_code error;
  const fs::path absolute = fs::absolute(folder.empty() ? fs::path(".") : fs::path(folder), error).lexically_normal();
  listing.folder = absolute.string();
  if (listing.folder.size() > 1 && listing.folder.back() == '/') listing.folder.pop_back();
  if (error) {
    listing.error = error.message();
    return listing;
  }
  fs::directory_iterator it(absolute, fs::directory_options::skip_permission_denied, error);
  if (error) {
    listing.error = "cannot list " + listing.folder + ": " + error.message();
    return listing;
  }
  for (const fs::directory_iterator end; it != end; it.increment(error)) {
    if (error) {
      listing.error = "listing " + listing.folder + " stopped: " + error.message();
      break;
    }
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_error;
    const bool is_folder = it->is_directory(type_error);
    if (is_folder || readable_image_name(name)) listing.entries.push_back({name, is_folder});
  }
  std::sort(listing.entries.begin(), listing.entries.end(), [](const FolderEntry& x, const FolderEntry& y) {
    if (x.folder != y.folder) return x.folder;
    const std::string a = lower(x.name), b = lower(y.name);
    return a != b ? a < b : x.name < y.name;
  });
  return listing;
}

std::string parent_folder(const std::string& folder) {
  const std::filesystem::path path(folder);
  return path.has_parent_path() && path.parent_path() != path ? path.parent_path().string() : folder;
}

}  // namespace gausslab
