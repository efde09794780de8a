#pragma once
// What the file browser (panels/file_browser.hpp) lists of a folder: its sub-folders, then the files
// the image readers take (by extension: a file of another name is not offered, though the typed
// path opens anything), each group sorted by name without regard to case; names that start with a
// dot are hidden, as in a shell's ls. Pure and GL-free, so that it is tested on the CPU.
#include <string>
#include <vector>

namespace gausslab {

struct FolderEntry {
  std::string name;  // the file name, no folder
  bool folder = false;
};

struct FolderListing {
  std::string folder;  // absolute and normalised
  std::vector<FolderEntry> entries;
  std::string error;   // why it could not be listed ("" when it was)
};

// Whether a file of this name is one the readers take (".png", ".EXR", ".fits", ".gif", ...).
bool readable_image_name(const std::string& name);
// The folder's entries as above; `folder` relative to the current directory or absolute.
FolderListing list_folder(const std::string& folder);
// The folder above `folder` (itself for the root).
std::string parent_folder(const std::string& folder);

}  // namespace gausslab
