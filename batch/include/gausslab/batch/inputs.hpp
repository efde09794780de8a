#pragma once
// What a batch reads: files, shell-style patterns, folders (optionally recursive) and list files
// (one path a line, "-" for standard input), expanded into one ordered list before any work.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "gausslab/batch/inputs_list.hpp"

namespace gausslab {

struct InputFile {
  std::string path;
  // The output's name under --out-dir, without extension: the file's stem, or for a file found in
  // a folder its path below that folder ("trip/day1/photo"), so a recursive batch keeps its tree.
  std::string relative_stem;
  std::uint64_t size_bytes = 0;  // 0 where the file cannot be examined (it fails when read)
  // The folder it was found in, as given (named, matched or listed); empty for a file named itself.
  std::string folder = {};
};

struct InputSpec {
  std::vector<std::string> items;  // files, folders, patterns (* ? [...])
  std::string list_file;           // --from-list: a file of paths, "-" for standard input
  bool recursive = false;          // --recursive: folders' subfolders too
  ListFormat list_format;          // --list-comments, --list-null
};

// True for the file name extensions a folder's images are recognised by (case-insensitive):
// .png .jpg .jpeg .bmp .tga .pgm .ppm .pnm .pam .pbm .gif .psd .hdr .pic .tif .tiff.
bool has_image_extension(const std::string& path);

// Expands every item in order (a list's names after the command line's items; the list read as
// inputs_list.hpp says, within `limits`, a list file by core's opening rule). A named file is taken
// as it is, even when missing or not an image (that file then fails with its reason); a folder
// contributes its files with an image extension, sorted by name; a pattern its matches, sorted. A
// listed name is a file or a folder, never a pattern. Throws UsageError for a pattern that matches
// nothing, a folder with no image file, a list that cannot be read or passes a limit (naming the
// line), or nothing at all. `notes` receives what the user should know (subfolders skipped without
// --recursive).
std::vector<InputFile> expand_inputs(const InputSpec& spec, std::istream& standard_input,
                                     std::vector<std::string>& notes, const ListLimits& limits = {});

}  // namespace gausslab
