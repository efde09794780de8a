#pragma once
// Where the viewer saves: a folder the user chose, remembered between runs in
// $XDG_CONFIG_HOME/gausslab/viewer.conf (~/.config/gausslab/viewer.conf), else the working
// folder. And writing a new text file (the JSON sidecars, CSV) atomically without ever replacing one.
#include <string>

namespace gausslab {

// The remembered folder, or "" when none (or it no longer exists).
std::string remembered_save_folder();
// Remembers `folder`; returns "" or why it could not.
std::string remember_save_folder(const std::string& folder);

// Writes `text` to a temporary file beside `path`, flushes it and links it into place only if no
// file has that name (so an existing file is never replaced, even by a race). Returns "" or the
// reason it failed (nothing is left under either name then).
std::string write_new_text_file(const std::string& path, const std::string& text);

// The first name of the form stem.ext, stem-2.ext, ... for which stem + each of `extensions` is
// free (a picture and its sidecar share the stem). `stem` includes the folder.
std::string first_free_stem(const std::string& stem, const char* const* extensions, int count);

}  // namespace gausslab
