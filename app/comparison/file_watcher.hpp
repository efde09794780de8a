#pragma once
// Watches one file for a new version, polled from the frame loop (no thread): its stamp (mtime in
// nanoseconds, size, inode and device) is read at most every kPollSeconds, and a change is reported
// only once two polls in a row agree on the new stamp, so that a file still being written (its size
// or mtime still moving) is not read half-written. A read that fails anyway (a writer slower than
// two polls) fails cleanly in core's reader; the caller keeps the old picture, says why, and calls
// taken(): the next version the writer finishes is a new stamp, and is reported in turn.
// Used by the reference slot (a file in A or B) and --watch (the opened picture).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gausslab {

struct FileStamp {
  bool exists = false;
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;
  std::uint64_t inode = 0, device = 0;
  friend bool operator==(const FileStamp& x, const FileStamp& y) {
    return x.exists == y.exists && x.mtime_ns == y.mtime_ns && x.size == y.size && x.inode == y.inode &&
           x.device == y.device;
  }
  friend bool operator!=(const FileStamp& x, const FileStamp& y) { return !(x == y); }
};

// The file's stamp now (exists = false when it cannot be stat'ed).
FileStamp file_stamp(const std::string& path);

class FileWatcher {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kPollSeconds = 0.25;

  FileWatcher() = default;
  // Starts from the version on disk now (the one the caller has just read).
  explicit FileWatcher(std::string path);

  const std::string& path() const { return path_; }
  bool watching() const { return !path_.empty(); }
  // True when a new version has stood still for two polls: read it, then call taken() whether the
  // read worked or not. Polls the disk only when kPollSeconds have passed since the last poll.
  bool changed(Clock::time_point now = Clock::now());
  // The version last reported by changed() is the one the caller has now (or has given up on).
  void taken();

 private:
  std::string path_;
  FileStamp current_;                 // the version the caller has
  std::optional<FileStamp> pending_;  // a new version seen at the last poll
  std::optional<Clock::time_point> last_poll_;
};

}  // namespace gausslab
