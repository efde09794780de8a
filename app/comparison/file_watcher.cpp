#include "comparison/file_watcher.hpp"

#include <sys/stat.h>

namespace gausslab {

FileStamp file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  FileStamp stamp;
  stamp.exists = true;
  stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  stamp.size = static_cast<std::int64_t>(st.st_size);
  stamp.inode = static_cast<std::uint64_t>(st.st_ino);
  stamp.device = static_cast<std::uint64_t>(st.st_dev);
  return stamp;
}

FileWatcher::FileWatcher(std::string path) : path_(std::move(path)), current_(file_stamp(path_)) {}

bool FileWatcher::changed(Clock::time_point now) {
  if (!watching()) return false;
  if (last_poll_ && std::chrono::duration<double>(now - *last_poll_).count() < kPollSeconds)
    return false;
  last_poll_ = now;
  const FileStamp stamp = file_stamp(path_);
  if (stamp == current_) {  // back as it was (or never changed)
    pending_.reset();
    return false;
  }
  if (pending_ && *pending_ == stamp) return true;  // the new version stood still since the last poll
  pending_ = stamp;
  return false;
}

void FileWatcher::taken() {
  if (pending_) current_ = *pending_;
  pending_.reset();
}

}  // namespace gausslab
