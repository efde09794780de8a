#pragma once
// Every file gausslab writes (filtered images, screenshots, benchmark results) goes through
// AtomicFile: the bytes go to a temporary file in the target's folder, which is flushed, synced,
// closed (checked) and only then moved to its final name in one step. A reader therefore sees the
// whole file or nothing: a full disk, a failing close(), an unwritable folder or SIGINT/SIGTERM
// never leave a partial file under the final name, and no temporary file is left behind (SIGKILL
// and power loss excepted: those can leave a `NAME.tmp-XXXXXX` beside the target; NAME is cut
// short where the whole would pass the longest file name, so that every name that fits can be
// written).
//
// The new file's permissions follow the umask (0666 & ~umask), as for any program's output; a
// file replaced with Overwrite::Allowed keeps its own permissions. With Overwrite::Never an
// existing file is never replaced, also when it appears while we write (the final step fails
// atomically instead of replacing it).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gausslab {

enum class Overwrite { Never, Allowed };

// A file could not be written; what() names the file, the problem and what to do.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtomicFile {
 public:
  // Creates the temporary file beside `path`. Throws FileWriteError when output_file_problem
  // says why not, or the folder is missing or unwritable.
  AtomicFile(std::string path, Overwrite overwrite);
  // Without commit() the temporary file is removed: nothing appears under `path`.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Buffered (a block of kDirectWriteBytes or more goes to the file at once, uncopied); throws
  // FileWriteError (the disk is full, ...), after which commit() is refused.
  void write(const void* data, std::size_t size);
  // The buffer's size: a block this large or larger is written from the caller's memory.
  static constexpr std::size_t kDirectWriteBytes = std::size_t(1) << 20;
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Flush, fsync, close (checked), then move into place and fsync the folder; throws
  // FileWriteError on any failure, leaving nothing under `path` and no temporary file. The data
  // are on the disk before the rename is made, so after a crash or power loss `path` holds the
  // whole new file or what it held before, never part of one; once commit() returns the name is
  // on the disk too. An AtomicFile is used by one thread at a time but may be handed to another
  // between calls: the batch writes on its pool's threads and commits on threads of its own, so
  // that waiting for the disk overlaps the encoding of the next files.
  void commit();

  const std::string& path() const { return path_; }
  std::size_t bytes_written() const { return bytes_written_; }

 private:
  void flush_buffer();
  void write_all(const unsigned char* bytes, std::size_t size);
  [[noreturn]] void fail(const std::string& what, int error_number);
  void discard() noexcept;

  std::string path_;
  std::string temp_path_;
  Overwrite overwrite_;
  int fd_ = -1;
  int slot_ = -1;  // the pending-files slot that SIGINT/SIGTERM clean up
  bool committed_ = false;
  bool failed_ = false;
  std::size_t bytes_written_ = 0;
  std::vector<unsigned char> buffer_;
};

// Empty when AtomicFile(path, overwrite) would start writing `path`, as far as can be told before
// the work: the file name fits the file system (NAME_MAX of its folder, usually 255 bytes) and the
// path PATH_MAX; `path` is not a folder, a device, FIFO or socket, nor, with Overwrite::Never, an
// existing file or a symbolic link (one to nothing too). Otherwise the reason, which the
// constructor throws. Programs check their outputs with it before the work, so that no run ends
// in a refusal to write.
std::string output_file_problem(const std::string& path, Overwrite overwrite);

// Empty when the folder that `path` goes into is a folder (or `path` names no folder); otherwise
// "'PATH': the folder 'F' does not exist" or "'PATH': 'F' is a file, not a folder". The writers'
// path checks (check_output_path, check_npy_output_path) ask it before output_file_problem.
std::string output_folder_problem(const std::string& path);

// The whole content at once through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content, Overwrite overwrite);

// Removes the temporary files of every AtomicFile not yet committed. Async-signal-safe: for a
// program that installs its own SIGINT/SIGTERM handler. (Where SIGINT, SIGTERM and SIGHUP still
// have their default action, AtomicFile installs a handler that calls this and then dies of the
// signal as before.) It waits for threads creating a temporary file at that moment, and after it no
// AtomicFile can be created (FileWriteError: the program is stopping).
void remove_pending_temporary_files() noexcept;

// For tests only: the next AtomicFile operation of this kind fails with `error_number` (ENOSPC,
// EIO, ...) as if the system had returned it; 0 clears. Real failures are tested too (a full
// tmpfs, RLIMIT_FSIZE, a read-only folder): this reaches the ones a test cannot cause, such as a
// failing close().
enum class FileStep { Create, Write, Sync, Close, Publish };
void inject_file_fault_for_testing(FileStep step, int error_number);

}  // namespace gausslab
