#pragma once
// One rule for every program that writes: an output never replaces an input of the same run, with
// or without --overwrite. A run registers the files it reads, then checks every output path
// before the work starts. An output is an input when it is the same file (st_dev and st_ino, so a
// symbolic link or a hard link to the input counts), or, for an output that does not exist yet,
// when its resolved path (symbolic links and "..", followed as far as the path exists) is an
// input's: "new/../photo.png" becomes the input once "new" is created.
//
// (Replacing an output is atomic, a rename(): through a link the input's bytes would survive, but
// its name would then hold the output, and a user who wrote "--overwrite" did not mean an input.)
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gausslab {

// The input an output would replace, and how they are the same file.
struct InputClash {
  std::string input;  // as registered
  // "" (the same path), "through a symbolic link" or "a hard link to it".
  std::string how;
};

class RunInputs {
 public:
  // Registers a file the run reads (a missing one is remembered by its resolved path).
  void add(const std::string& path);
  void add(const std::vector<std::string>& paths);
  std::size_t size() const { return paths_.size(); }

  // The input `output` would replace, if any.
  std::optional<InputClash> clash(const std::string& output) const;

  // Empty when `output` replaces no input; otherwise a message naming both paths:
  // "'o' would replace the input 'i' (through a symbolic link); <program> never writes over an
  // input of its run, even with --overwrite: <advice>".
  std::string refusal(const std::string& output, const std::string& program, const std::string& advice) const;

 private:
  struct FileId {
    std::uint64_t device, inode;
    bool operator==(const FileId& other) const { return device == other.device && inode == other.inode; }
  };
  struct FileIdHash {
    std::size_t operator()(const FileId& id) const { return std::hash<std::uint64_t>()(id.device * 0x9E3779B97F4A7C15ULL ^ id.inode); }
  };

  std::vector<std::string> paths_;
  std::unordered_map<FileId, std::size_t, FileIdHash> by_file_;   // → index in paths_
  std::unordered_map<std::string, std::size_t> by_resolved_path_;  // → index in paths_
};

// `path` made absolute, with symbolic links and ".." resolved as far as the path exists (the rest
// normalised as written): two paths that name the same place give the same string.
std::string resolved_path(const std::string& path);

}  // namespace gausslab
