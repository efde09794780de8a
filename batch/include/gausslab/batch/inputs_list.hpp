#pragma once
// The names in a --from-list file or standard input, read with bounded effort. A list is text:
// one name a line, each taken exactly as written (spaces kept, no quoting), the line ending "\n"
// or "\r\n"; empty lines are skipped (no file has an empty name). A name holding a newline (or
// ending in "\r") cannot be a line: such lists are written NUL-terminated (find -print0, --list-null),
// each name ended by a NUL byte. Lines starting with '#' are comments only with --list-comments
// (a name starting with '#' can then not be listed); without it they are names.
//
// Binary data is refused at its first NUL byte in a line list (/dev/urandom within a few hundred
// bytes); a list larger than the limits below is refused as soon as it passes one, never read
// whole: /dev/zero as a list grew to 2.1 GB before this, /dev/urandom without bound.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gausslab {

struct ListFormat {
  bool comments = false;  // --list-comments: '#' lines skipped
  bool null_separated = false;  // --list-null: names end with a NUL byte, not a newline
};

struct ListLimits {
  std::size_t max_name_bytes = 4095;        // PATH_MAX (4096, with its NUL): no longer path can be opened
  std::size_t max_names = 1 << 20;          // 1,048,576 names
  std::size_t max_list_bytes = 256u << 20;  // 256 MiB in all
};

// Reads up to `size` bytes into `buffer`; returns how many, 0 at the end. Throws on a read error.
using ReadBytes = std::function<std::size_t(char* buffer, std::size_t size)>;

// The names, in order. `source` names the list in messages ("'list.txt'", "standard input").
// Throws UsageError naming the list, the line (or name) number and the limit or the problem.
std::vector<std::string> read_name_list(const ReadBytes& read, const std::string& source, const ListFormat& format,
                                        const ListLimits& limits = {});

}  // namespace gausslab
