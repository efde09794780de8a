// AtomicFile: temporary file beside the target, checked write/fsync/close, then one rename (or a
// no-replace rename/link), and a signal handler that removes temporary files on SIGINT/SIGTERM.
#include "gausslab/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <string_view>

namespace gausslab {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kBufferBytes = AtomicFile::kDirectWriteBytes;

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

// ---- fault injection (tests) ----------------------------------------------------------------

std::array<std::atomic<int>, 5> g_faults{};

// True (with errno set) when a test asked this step to fail.
bool injected_fault(FileStep step) {
  const int error_number = g_faults[static_cast<std::size_t>(step)].exchange(0);
  if (error_number == 0) return false;
  errno = error_number;
  return true;
}

// ---- pending temporary files, removed by the signal handler -----------------------------------

// Fixed slots with the path stored inline, so the handler reads no memory that another thread may
// be freeing. State: 0 free, 1 being changed, 2 holds a pending temporary file.
struct PendingSlot {
  std::atomic<int> state{0};
  char path[4096] = {};
};
std::array<PendingSlot, 32> g_pending;

// Set by remove_pending_temporary_files: no new temporary file after it. g_creating counts the
// threads between their check of it and the open() of their file (registered first), so the removal
// can wait for them: otherwise a thread could create its file just after the removal had looked at
// its slot, and the process die of the signal with that file left (seen once in 30 CI runs of
// OutputFaults, a batch of 40 images on several threads stopped by SIGTERM).
std::atomic<bool> g_stopping{false};
std::atomic<int> g_creating{0};

void remove_pending_and_reraise(int signal_number) {
  remove_pending_temporary_files();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_cleanup_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(signal_number, nullptr, &current) != 0) continue;
      if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;  // the program's own
      struct sigaction cleanup {};
      cleanup.sa_handler = remove_pending_and_reraise;
      sigemptyset(&cleanup.sa_mask);
      sigaction(signal_number, &cleanup, nullptr);
    }
  });
}

// Registers `path`; -1 when every slot is taken (the file is then only removed by the destructor).
int register_pending(const std::string& path) {
  if (path.size() >= sizeof(PendingSlot::path)) return -1;
  for (std::size_t i = 0; i < g_pending.size(); ++i) {
    int expected = 0;
    if (!g_pending[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_pending[i].path, path.c_str(), path.size() + 1);
    g_pending[i].state.store(2);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_pending(int slot) {
  if (slot < 0) return;
  g_pending[static_cast<std::size_t>(slot)].state.store(1);
  g_pending[static_cast<std::size_t>(slot)].path[0] = '\0';
  g_pending[static_cast<std::size_t>(slot)].state.store(0);
}

// ---- permissions ------------------------------------------------------------------------------

// The process's umask without changing it (umask() can only be read by setting it, which races
// with other threads creating files): Linux reports it in /proc/self/status.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  static std::mutex mutex;  // older kernels: read it by setting it, under a lock
  std::lock_guard<std::mutex> lock(mutex);
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

// Six characters from [a-z0-9], different in every call and every process.
std::string random_suffix() {
  static std::atomic<unsigned long long> counter{0};
  static const unsigned long long seed = std::random_device{}() ^ (static_cast<unsigned long long>(::getpid()) << 32);
  unsigned long long x = seed + 0x9E3779B97F4A7C15ULL * ++counter;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  std::string suffix(6, '0');
  for (char& c : suffix) {
    c = "abcdefghijklmnopqrstuvwxyz0123456789"[x % 36];
    x /= 36;
  }
  return suffix;
}

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

constexpr std::size_t kTemporaryMark = std::string_view(".tmp-XXXXXX").size();  // what a temporary name adds

// The longest file name the file system of `path`'s folder takes (its nearest existing folder:
// a batch's output folder may not be made yet); 255 (NAME_MAX) where it cannot be asked.
std::size_t longest_name(const std::string& path) {
  fs::path folder = fs::path(folder_of(path));
  std::error_code ec;
  while (!folder.empty() && !fs::is_directory(folder, ec)) folder = folder.parent_path();
  const long limit = ::pathconf(folder.empty() ? "." : folder.c_str(), _PC_NAME_MAX);
  return limit > 0 ? static_cast<std::size_t>(limit) : NAME_MAX;
}

// NAME.tmp-XXXXXX beside the target, recognisable as the target's; a name too long to take the
// mark keeps only its first bytes, so that a name the file system takes always has a temporary
// name it takes too (a 250-byte output name used to fail after the work, at its temporary file).
std::string temporary_path(const std::string& path, std::size_t name_limit) {
  const fs::path target(path);
  std::string name = target.filename().string();
  if (name.size() + kTemporaryMark > name_limit) name.resize(name_limit > kTemporaryMark ? name_limit - kTemporaryMark : 1);
  return (target.parent_path() / (name + ".tmp-" + random_suffix())).string();
}

// What an errno means for someone writing `path`, in words that say what to do.
std::string explain(const std::string& path, int error_number) {
  const std::string folder = in_quotes(folder_of(path));
  const std::string system = std::strerror(error_number);
  switch (error_number) {
    case ENOSPC:
      return "the disk is full (" + system + "); free some space or write elsewhere";
    case EDQUOT:
      return "the disk quota is exhausted (" + system + "); free some space or write elsewhere";
    case EFBIG:
      return "the file is larger than this system or file system allows (" + system + ")";
    case EACCES:
    case EPERM:
      return "no permission to create files in the folder " + folder + " (" + system + ")";
    case EROFS:
      return "the folder " + folder + " is on a read-only file system (" + system + ")";
    case ENOENT: {
      std::error_code ec;
      if (fs::is_directory(folder_of(path), ec))  // /proc and such: a folder that takes no new files
        return "the folder " + folder + " takes no new files (" + system + "; a special file system such as /proc?); write elsewhere";
      return "the folder " + folder + " does not exist (" + system + ")";
    }
    case ENOTDIR:
      return "part of the path is not a folder (" + system + ")";
    case EIO:
      return "the device reported an input/output error (" + system + ")";
    default:
      return system;
  }
}

}  // namespace

void remove_pending_temporary_files() noexcept {
  g_stopping.store(true);
  // Bounded: when the signal interrupted a creating thread itself, that thread creates nothing more.
  for (long spin = 0; g_creating.load() != 0 && spin < 50'000'000; ++spin) {
  }
  for (PendingSlot& slot : g_pending)
    if (slot.state.load() == 2) ::unlink(slot.path);
}

void inject_file_fault_for_testing(FileStep step, int error_number) {
  g_faults[static_cast<std::size_t>(step)].store(error_number);
}

std::string output_file_problem(const std::string& path, Overwrite overwrite) {
  if (path.empty()) return "cannot write a file with an empty name";
  const std::string name = fs::path(path).filename().string();
  const std::size_t name_limit = longest_name(path);
  if (name.size() > name_limit)
    return "cannot write " + in_quotes(path) + ": its file name is " + std::to_string(name.size()) +
           " bytes, more than the " + std::to_string(name_limit) + " this file system allows; choose a shorter name";
  if (path.size() >= PATH_MAX)
    return "cannot write " + in_quotes(path) + ": the path is " + std::to_string(path.size()) + " bytes, more than the " +
           std::to_string(PATH_MAX - 1) + " Linux allows; choose a shorter folder or name";
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) return in_quotes(path) + " is a folder; give a file name";
    if (!S_ISREG(existing.st_mode))
      return in_quotes(path) + " exists and is not a regular file (a device, FIFO or socket); gausslab writes only "
                               "regular files, so choose another name";
    if (overwrite == Overwrite::Never)
      return in_quotes(path) + " already exists; gausslab never overwrites files, so choose another name (or pass "
                               "--overwrite)";
  } else if (overwrite == Overwrite::Never && ::lstat(path.c_str(), &existing) == 0 && S_ISLNK(existing.st_mode)) {
    // A symbolic link to nothing: the name exists (the final no-replace step would fail on it after
    // the work, as if the file had appeared meanwhile).
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    return in_quotes(path) + " already exists, as a symbolic link to " +
           (ec ? std::string("a file") : in_quotes(target.string())) +
           " that does not exist; gausslab never overwrites files, so remove the link or choose another name (or pass "
           "--overwrite to replace the link)";
  }
  return {};
}

std::string output_folder_problem(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (parent.empty() || fs::is_directory(parent, ec)) return {};
  return in_quotes(path) + (fs::exists(parent, ec) ? ": " + in_quotes(parent.string()) + " is a file, not a folder"
                                                   : ": the folder " + in_quotes(parent.string()) + " does not exist");
}

AtomicFile::AtomicFile(std::string path, Overwrite overwrite) : path_(std::move(path)), overwrite_(overwrite) {
  if (std::string problem = output_file_problem(path_, overwrite_); !problem.empty()) throw FileWriteError(problem);
  const std::size_t name_limit = longest_name(path_);
  struct stat existing {};
  mode_t mode = 0666 & ~current_umask();
  if (::stat(path_.c_str(), &existing) == 0) mode = existing.st_mode & 07777;  // a replaced file keeps its permissions

  install_signal_cleanup_once();
  // The name is registered for the signal handler before the file exists, so that no moment
  // leaves a file the handler does not know; O_EXCL makes the name ours.
  int error_number = EEXIST;
  for (int attempt = 0; attempt < 100 && fd_ < 0 && error_number == EEXIST; ++attempt) {
    temp_path_ = temporary_path(path_, name_limit);
    g_creating.fetch_add(1);
    if (g_stopping.load()) {  // the temporary files are being removed: the program is stopping
      g_creating.fetch_sub(1);
      temp_path_.clear();
      throw FileWriteError("cannot write " + in_quotes(path_) + ": the program is stopping");
    }
    slot_ = register_pending(temp_path_);
    fd_ = injected_fault(FileStep::Create)
              ? -1
              : ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
    error_number = errno;
    g_creating.fetch_sub(1);
    if (fd_ < 0) {
      unregister_pending(slot_);
      slot_ = -1;
    }
  }
  if (fd_ < 0) {
    temp_path_.clear();
    throw FileWriteError("cannot write " + in_quotes(path_) + ": " + explain(path_, error_number));
  }
  if (::fchmod(fd_, mode) != 0) fail("cannot set the permissions of", errno);
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  unregister_pending(slot_);
  slot_ = -1;
}

void AtomicFile::fail(const std::string& what, int error_number) {
  failed_ = true;
  discard();
  throw FileWriteError(what + " " + in_quotes(path_) + ": " + explain(path_, error_number) +
                       "; nothing was written under that name");
}

void AtomicFile::write(const void* data, std::size_t size) {
  if (failed_ || committed_) throw FileWriteError("cannot write " + in_quotes(path_) + ": the file is closed");
  const auto* bytes = static_cast<const unsigned char*>(data);
  bytes_written_ += size;
  if (buffer_.size() + size <= kBufferBytes) {
    buffer_.insert(buffer_.end(), bytes, bytes + size);
    return;
  }
  flush_buffer();
  if (size < kBufferBytes) {
    buffer_.insert(buffer_.end(), bytes, bytes + size);
    return;
  }
  // Large blocks go out directly from the caller's memory: copying a whole encoded image into
  // the buffer first cost a fresh allocation of its size and one more pass over it.
  write_all(bytes, size);
}

void AtomicFile::flush_buffer() {
  write_all(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write_all(const unsigned char* bytes, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = injected_fault(FileStep::Write) ? -1 : ::write(fd_, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n == 0 ? ENOSPC : errno);
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (failed_ || committed_) throw FileWriteError("cannot write " + in_quotes(path_) + ": the file is closed");
  flush_buffer();
  // fsync first: after a crash the final name must not point at a file whose data never reached
  // the disk. close() is checked: on NFS and with quotas it is where a write error shows.
  if (injected_fault(FileStep::Sync) || ::fsync(fd_) != 0) fail("cannot write", errno);
  const int fd = fd_;
  fd_ = -1;
  if (injected_fault(FileStep::Close)) {
    const int error_number = errno;
    ::close(fd);
    fail("cannot write", error_number);
  }
  if (::close(fd) != 0) fail("cannot write", errno);

  int published = -1;
  if (injected_fault(FileStep::Publish)) {
  } else if (overwrite_ == Overwrite::Allowed) {
    published = ::rename(temp_path_.c_str(), path_.c_str());
  } else {
    // Never replace: renameat2(RENAME_NOREPLACE) fails if the name exists, atomically. File
    // systems without it get link() (also fails if the name exists), then the temp name goes.
    published = ::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
    if (published != 0 && (errno == EINVAL || errno == ENOSYS)) {
      published = ::link(temp_path_.c_str(), path_.c_str());
      if (published == 0) ::unlink(temp_path_.c_str());
    }
  }
  if (published != 0) {
    const int error_number = errno;
    if (error_number == EEXIST) {
      failed_ = true;
      discard();
      throw FileWriteError(in_quotes(path_) + " already exists (it appeared while gausslab was writing); gausslab "
                                           "never overwrites files, so choose another name (or pass --overwrite)");
    }
    fail("cannot move the finished file into place as", error_number);
  }
  committed_ = true;
  unregister_pending(slot_);
  slot_ = -1;
  // The rename itself reaches the disk with the folder's metadata. The file is already in place:
  // a failure here cannot be undone and is not reported.
  const int folder = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

void write_file_atomically(const std::string& path, std::string_view content, Overwrite overwrite) {
  AtomicFile file(path, overwrite);
  file.write(content);
  file.commit();
}

}  // namespace gausslab
