// AtomicFile: a file appears whole under its name or not at all, with the umask's permissions;
// a full disk, a failing fsync/close, an unwritable folder and SIGINT/SIGTERM leave neither a
// partial file under the final name nor a temporary file, and the message says what happened.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/core/npy_io.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;
using test::ScratchFolder;

std::vector<std::string> folder_entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

mode_t permissions(const std::string& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
  return status.st_mode & 07777;
}

// The message of the FileWriteError that `write` throws, "" (and a test failure) if none.
template <class Write>
std::string write_error(Write write) {
  try {
    write();
    ADD_FAILURE() << "the write succeeded";
  } catch (const FileWriteError& e) {
    return e.what();
  }
  return {};
}

TEST(AtomicFile, WritesTheWholeFileAndLeavesNothingElse) {
  ScratchFolder folder;
  const std::string path = folder.file("out.csv");
  const std::string content(3 << 20, 'x');  // more than the 1 MiB buffer
  {
    AtomicFile file(path, Overwrite::Never);
    file.write(content.substr(0, 10));
    EXPECT_FALSE(fs::exists(path)) << "the final name appeared before commit";
    file.write(content.substr(10));
    file.commit();
  }
  EXPECT_EQ(read_text(path), content);
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"out.csv"});
}

TEST(AtomicFile, SmallAndLargeWritesKeepTheirOrderAndALargeOneFailsCleanly) {
  // Blocks of 1 MiB or more go to the file straight from the caller's memory; the buffered bytes
  // before them go first.
  ScratchFolder folder;
  const std::string path = folder.file("mixed.bin");
  const std::string small(1000, 's'), large((1 << 20) + 17, 'L'), tail(3, 't');
  {
    AtomicFile file(path, Overwrite::Never);
    file.write(small);
    file.write(large);
    file.write(tail);
    file.write(large);
    EXPECT_EQ(file.bytes_written(), small.size() + 2 * large.size() + tail.size());
    file.commit();
  }
  EXPECT_EQ(read_text(path), small + large + tail + large);
  // A large block the disk refuses fails in write(), leaving nothing.
  const std::string refused = folder.file("refused.bin");
  inject_file_fault_for_testing(FileStep::Write, ENOSPC);
  const std::string message = write_error([&] { write_file_atomically(refused, large, Overwrite::Never); });
  inject_file_fault_for_testing(FileStep::Write, 0);
  EXPECT_TRUE(contains(message, "the disk is full")) << message;
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"mixed.bin"});
}

TEST(AtomicFile, WithoutCommitNothingAppears) {
  ScratchFolder folder;
  {
    AtomicFile file(folder.file("abandoned.png"), Overwrite::Never);
    file.write("half");
  }
  EXPECT_TRUE(folder_entries(folder.path()).empty());
}

TEST(AtomicFile, PermissionsFollowTheUmaskAndAReplacedFileKeepsItsOwn) {
  ScratchFolder folder;
  const mode_t old_mask = ::umask(027);
  write_file_atomically(folder.file("new.txt"), "a", Overwrite::Never);
  ::umask(077);
  write_file_atomically(folder.file("private.txt"), "b", Overwrite::Never);
  ::umask(old_mask);
  EXPECT_EQ(permissions(folder.file("new.txt")), 0640u);
  EXPECT_EQ(permissions(folder.file("private.txt")), 0600u);

  ASSERT_EQ(::chmod(folder.file("new.txt").c_str(), 0604), 0);
  write_file_atomically(folder.file("new.txt"), "replaced", Overwrite::Allowed);
  EXPECT_EQ(read_text(folder.file("new.txt")), "replaced");
  EXPECT_EQ(permissions(folder.file("new.txt")), 0604u);
}

TEST(AtomicFile, NeverReplacesAnExistingFile) {
  ScratchFolder folder;
  const std::string path = folder.file("keep.txt");
  write_file_atomically(path, "original", Overwrite::Never);
  const std::string message = write_error([&] { write_file_atomically(path, "new", Overwrite::Never); });
  EXPECT_TRUE(contains(message, "keep.txt")) << message;
  EXPECT_TRUE(contains(message, "already exists")) << message;
  EXPECT_EQ(read_text(path), "original");
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"keep.txt"});
}

TEST(AtomicFile, AFileThatAppearsWhileWritingIsNotReplaced) {
  ScratchFolder folder;
  const std::string path = folder.file("race.txt");
  AtomicFile file(path, Overwrite::Never);
  file.write("ours");
  write_file_atomically(path, "theirs", Overwrite::Never);  // someone else got there first
  const std::string message = write_error([&] { file.commit(); });
  EXPECT_TRUE(contains(message, "appeared while")) << message;
  EXPECT_EQ(read_text(path), "theirs");
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"race.txt"});
}

TEST(AtomicFile, RefusesFoldersDevicesAndMissingFolders) {
  ScratchFolder folder;
  EXPECT_TRUE(contains(write_error([&] { AtomicFile f(folder.path().string(), Overwrite::Allowed); }), "is a folder"));
  EXPECT_TRUE(contains(write_error([&] { AtomicFile f("/dev/full", Overwrite::Allowed); }), "not a regular file"));
  const std::string missing = write_error([&] { AtomicFile f(folder.file("no/such/out.png"), Overwrite::Never); });
  EXPECT_TRUE(contains(missing, "does not exist")) << missing;
  // A folder that exists but takes no new files (procfs answers ENOENT): not called missing.
  if (fs::is_directory("/proc/self")) {
    const std::string special = write_error([&] { AtomicFile f("/proc/self/out.png", Overwrite::Never); });
    EXPECT_FALSE(contains(special, "does not exist")) << special;
  }
}

TEST(AtomicFile, EveryNameTheFileSystemTakesCanBeWrittenAndALongerOneIsRefusedBeforeWriting) {
  ScratchFolder folder;
  if (::pathconf(folder.path().c_str(), _PC_NAME_MAX) != 255) GTEST_SKIP() << "this file system's names are not 255 bytes";
  // 245 to 255 bytes: the temporary name (11 bytes more) used to fail after the work.
  for (std::size_t length : {244u, 245u, 250u, 255u}) {
    const std::string name = std::string(length - 4, 'n') + ".png";
    write_file_atomically(folder.file(name), "whole", Overwrite::Never);
    EXPECT_EQ(read_text(folder.file(name)), "whole") << length;
  }
  EXPECT_EQ(folder_entries(folder.path()).size(), 4u) << "a temporary file was left";
  const std::string too_long = folder.file(std::string(252, 'n') + ".png");
  const std::string problem = output_file_problem(too_long, Overwrite::Allowed);
  EXPECT_TRUE(contains(problem, "its file name is 256 bytes, more than the 255 this file system allows")) << problem;
  EXPECT_EQ(write_error([&] { AtomicFile f(too_long, Overwrite::Allowed); }), problem);
  EXPECT_EQ(output_file_problem(folder.file("fine.png"), Overwrite::Never), "");
}

TEST(AtomicFile, ALinkToNothingIsAnExistingNameFoundBeforeWriting) {
  ScratchFolder folder;
  const std::string link = folder.file("dangling.png");
  ASSERT_EQ(::symlink("missing.png", link.c_str()), 0);
  // It used to pass every check and fail at the end as "appeared while gausslab was writing".
  const std::string problem = output_file_problem(link, Overwrite::Never);
  EXPECT_TRUE(contains(problem, "already exists, as a symbolic link to 'missing.png' that does not exist")) << problem;
  EXPECT_EQ(write_error([&] { AtomicFile f(link, Overwrite::Never); }), problem);
  // --overwrite replaces the name, as it replaces any other.
  EXPECT_EQ(output_file_problem(link, Overwrite::Allowed), "");
  write_file_atomically(link, "now a file", Overwrite::Allowed);
  EXPECT_EQ(read_text(link), "now a file");
  EXPECT_FALSE(fs::exists(folder.file("missing.png")));
}

// The output's folder, missing or a file: one check (output_folder_problem), so the image and the
// .npy writers' path checks say it in the same words.
TEST(AtomicFile, AMissingFolderOrAFileInItsPlaceIsSaidOnceForEveryWriter) {
  ScratchFolder folder;
  std::ofstream(folder.file("plain")) << "a file";
  EXPECT_EQ(output_folder_problem(folder.file("fine.png")), "");
  EXPECT_EQ(output_folder_problem("fine.png"), "") << "no folder part: the working folder";
  const std::string missing = output_folder_problem(folder.file("nowhere/out.png"));
  EXPECT_EQ(missing, "'" + folder.file("nowhere/out.png") + "': the folder '" + folder.file("nowhere") +
                         "' does not exist");
  const std::string under_a_file = output_folder_problem(folder.file("plain/out.png"));
  EXPECT_EQ(under_a_file, "'" + folder.file("plain/out.png") + "': '" + folder.file("plain") + "' is a file, not a folder");
  for (const char* name : {"nowhere/out", "plain/out"}) {
    const std::string image = folder.file(name) + ".png", npy = folder.file(name) + ".npy";
    EXPECT_EQ(check_output_path(image, Overwrite::Never), output_folder_problem(image)) << name;
    EXPECT_EQ(check_npy_output_path(npy, Overwrite::Never), output_folder_problem(npy)) << name;
  }
}

// Each failing step of writing leaves no file and says what went wrong.
struct Fault {
  FileStep step;
  int error_number;
  const char* expected;
};

TEST(AtomicFile, EveryFailingStepLeavesNoFileAndExplains) {
  const Fault faults[] = {
      {FileStep::Create, EACCES, "no permission to create files"},
      {FileStep::Write, ENOSPC, "the disk is full"},
      {FileStep::Write, EDQUOT, "quota"},
      {FileStep::Sync, EIO, "input/output error"},
      {FileStep::Close, EIO, "input/output error"},  // close() failing on NFS or with quotas: never published
      {FileStep::Close, ENOSPC, "the disk is full"},
      {FileStep::Publish, EXDEV, "cannot move the finished file into place"},
  };
  for (const Fault& fault : faults) {
    SCOPED_TRACE(fault.expected);
    ScratchFolder folder;
    const std::string path = folder.file("result.png");
    inject_file_fault_for_testing(fault.step, fault.error_number);
    const std::string message = write_error([&] { write_file_atomically(path, std::string(5000, 'p'), Overwrite::Never); });
    inject_file_fault_for_testing(fault.step, 0);
    EXPECT_TRUE(contains(message, "result.png")) << message;
    EXPECT_TRUE(contains(message, fault.expected)) << message;
    EXPECT_TRUE(folder_entries(folder.path()).empty()) << message;
  }
}

// ---- real failures, in child processes (death tests) -----------------------------------------

// In a child: writes 1 MiB to `path` under a file-size limit of 64 KiB (the kernel refuses the
// write with EFBIG, as a full disk refuses with ENOSPC); exits 0 if the error said so.
[[noreturn]] void write_beyond_file_size_limit(const std::string& path) {
  std::signal(SIGXFSZ, SIG_IGN);  // report EFBIG instead of killing the process
  struct rlimit cap {};
  cap.rlim_cur = cap.rlim_max = 64 << 10;
  setrlimit(RLIMIT_FSIZE, &cap);
  try {
    write_file_atomically(path, std::string(1 << 20, 'z'), Overwrite::Never);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(contains(e.what(), "larger than this system") ? 0 : 1);
  }
  std::exit(2);
}

TEST(AtomicFileDeathTest, AWriteTheKernelRefusesLeavesNoFile) {
  ScratchFolder folder;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_beyond_file_size_limit(folder.file("big.bin")), testing::ExitedWithCode(0), "big.bin");
  EXPECT_TRUE(folder_entries(folder.path()).empty());
}

// In a child: writes part of a file, then receives `signal_number` as from Ctrl+C or kill.
[[noreturn]] void interrupted_while_writing(const std::string& path, int signal_number) {
  AtomicFile file(path, Overwrite::Never);
  file.write(std::string(2 << 20, 'i'));  // beyond the buffer: the temporary file has data
  std::raise(signal_number);
  std::exit(0);
}

TEST(AtomicFileDeathTest, SigintAndSigtermLeaveNoTemporaryFile) {
  for (int signal_number : {SIGINT, SIGTERM}) {
    ScratchFolder folder;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(interrupted_while_writing(folder.file("out.png"), signal_number), testing::KilledBySignal(signal_number),
                "");
    EXPECT_TRUE(folder_entries(folder.path()).empty()) << "signal " << signal_number;
  }
}

// In a child without the privileges that ignore permissions: writes into a read-only folder.
[[noreturn]] void write_into_read_only_folder(const std::string& folder) {
  if (::geteuid() == 0 && ::setuid(65534) != 0) std::exit(3);  // root writes anywhere: become nobody
  try {
    write_file_atomically(folder + "/out.png", "x", Overwrite::Never);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(contains(e.what(), "no permission") ? 0 : 1);
  }
  std::exit(2);
}

TEST(AtomicFileDeathTest, AnUnwritableFolderIsAClearError) {
  ScratchFolder folder;
  const fs::path locked = folder.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(folder.path(), fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                              fs::perms::others_exec | fs::perms::group_read | fs::perms::group_exec);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(write_into_read_only_folder(locked.string()), testing::ExitedWithCode(0), "locked");
  EXPECT_TRUE(folder_entries(locked).empty());
  fs::permissions(locked, fs::perms::owner_all);
}

}  // namespace
}  // namespace gausslab
