#pragma once
// The file browser (Ctrl+O; Debian's GLFW has no native file dialog): a window over the picture
// with a path field at the top (typed paths open as the picture section's Open field does), the
// folder's sub-folders and readable images below (viewer/folder_listing.hpp). Keys: Up and Down
// move the selection, Enter opens it (a folder: goes into it), Backspace goes up a folder, Esc
// closes; a double click opens; typing in the field filters the list by name. Opening goes through
// the same call as the Open field and a dropped file (Comparison::open_file).
#include <optional>
#include <string>

#include "viewer/folder_listing.hpp"

namespace gausslab {

struct FileBrowser {
  bool open = false;
  bool focus_field = false;  // the path field takes the keys at the next draw
  std::string folder;        // the folder listed ("" until first opened: the current one)
  std::string field;         // the path field: a path to open, or a filter on the names
  int selected = -1;         // in the filtered list
  FolderListing listing;     // of `folder`, read when the browser opens or the folder changes
};

// Opens the browser on `folder` (that of the picture shown, or the current one when empty), the
// field focused.
void open_file_browser(FileBrowser& browser, const std::string& folder);
// Draws the browser while it is open; returns the path the user chose to open.
std::optional<std::string> file_browser_window(FileBrowser& browser);

}  // namespace gausslab
