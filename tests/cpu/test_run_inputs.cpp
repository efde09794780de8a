// RunInputs (an output never replaces an input of its run) and core's opening rule (regular files
// only, never blocking): the same file found by its path, through a symbolic link, a symbolic
// link to its folder, a hard link, and a path through a folder not made yet; a FIFO with no writer
// refused at once (the test would hang otherwise), a folder and a device named; a small file read
// whole, a larger one refused.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gausslab/core/regular_file.hpp"
#include "gausslab/core/run_inputs.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;
using test::ScratchFolder;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string make_file(const ScratchFolder& folder, const std::string& name) {
  const std::string path = folder.file(name);
  std::ofstream(path) << "input";
  return path;
}

TEST(RunInputs, AnOutputThatIsAnInputIsRefusedNamingBoth) {
  ScratchFolder folder;
  RunInputs inputs;
  const std::string photo = make_file(folder, "photo.png");
  inputs.add(photo);
  const std::string message = inputs.refusal(photo, "gausslab-x", "choose another name");
  EXPECT_TRUE(contains(message, "'" + photo + "' would replace the input '" + photo + "'")) << message;
  EXPECT_TRUE(contains(message, "even with --overwrite: choose another name")) << message;
  EXPECT_FALSE(contains(message, "(")) << "the same path needs no explanation: " << message;
  // The same path written differently.
  EXPECT_TRUE(inputs.clash(folder.file("./sub/../photo.png")));
  EXPECT_EQ(inputs.clash(folder.file("./sub/../photo.png"))->how, "");
}

TEST(RunInputs, OtherFilesAreNotInputs) {
  ScratchFolder folder;
  RunInputs inputs;
  inputs.add(make_file(folder, "photo.png"));
  make_file(folder, "other.png");
  EXPECT_FALSE(inputs.clash(folder.file("other.png")));
  EXPECT_FALSE(inputs.clash(folder.file("new.png")));
  EXPECT_EQ(inputs.refusal(folder.file("other.png"), "p", "a"), "");
}

TEST(RunInputs, ASymbolicLinkToAnInputIsTheInput) {
  ScratchFolder folder;
  RunInputs inputs;
  const std::string photo = make_file(folder, "photo.png");
  inputs.add(photo);
  fs::create_symlink(photo, folder.file("link.png"));
  ASSERT_TRUE(inputs.clash(folder.file("link.png")));
  EXPECT_EQ(inputs.clash(folder.file("link.png"))->how, "through a symbolic link");
  // And the other way round: the input given through the link, the output by its own name.
  RunInputs through_link;
  through_link.add(folder.file("link.png"));
  EXPECT_TRUE(through_link.clash(photo));
}

TEST(RunInputs, AnOutputInASymbolicLinkToTheInputsFolderIsTheInput) {
  ScratchFolder folder;
  fs::create_directory(folder.file("frames"));
  RunInputs inputs;
  inputs.add(make_file(folder, "frames/f1.png"));
  fs::create_directory_symlink(folder.file("frames"), folder.file("out"));
  ASSERT_TRUE(inputs.clash(folder.file("out/f1.png")));
  EXPECT_EQ(inputs.clash(folder.file("out/f1.png"))->how, "through a symbolic link");
}

TEST(RunInputs, AHardLinkToAnInputIsTheInput) {
  ScratchFolder folder;
  RunInputs inputs;
  const std::string photo = make_file(folder, "photo.png");
  inputs.add(photo);
  ASSERT_EQ(::link(photo.c_str(), folder.file("hard.png").c_str()), 0);
  ASSERT_TRUE(inputs.clash(folder.file("hard.png")));
  EXPECT_EQ(inputs.clash(folder.file("hard.png"))->how, "a hard link to it");
  const std::string message = inputs.refusal(folder.file("hard.png"), "p", "a");
  EXPECT_TRUE(contains(message, "(a hard link to it)")) << message;
}

TEST(RunInputs, AnOutputThroughAFolderNotMadeYetIsFoundByItsResolvedPath) {
  ScratchFolder folder;
  RunInputs inputs;
  const std::string photo = make_file(folder, "photo.png");
  inputs.add(photo);
  // "new" does not exist: stat fails, but once a program makes the folder, new/../photo.png is photo.png.
  EXPECT_TRUE(inputs.clash(folder.file("new/../photo.png")));
  EXPECT_FALSE(inputs.clash(folder.file("new/photo.png")));
}

TEST(RunInputs, AMissingInputIsRememberedByItsPath) {
  ScratchFolder folder;
  RunInputs inputs;
  inputs.add(folder.file("later.png"));
  EXPECT_TRUE(inputs.clash(folder.file("later.png")));
  EXPECT_TRUE(inputs.clash(folder.file("x/../later.png")));
}

TEST(RegularFile, ARegularFileOpensWithItsSize) {
  ScratchFolder folder;
  const RegularFile file = open_regular_file(make_file(folder, "list.txt"));
  EXPECT_GE(file.fd(), 0);
  EXPECT_EQ(file.size_bytes(), 5u);
}

TEST(RegularFile, AFifoWithNoWriterIsRefusedAtOnce) {
  ScratchFolder folder;
  const std::string fifo = folder.file("f");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string problem = regular_file_problem(fifo, "lists");
  EXPECT_TRUE(contains(problem, "'" + fifo + "' is a FIFO (named pipe), not a regular file")) << problem;
  EXPECT_TRUE(contains(problem, "gausslab reads lists from regular files only")) << problem;
}

TEST(RegularFile, FoldersDevicesAndMissingFilesAreNamed) {
  ScratchFolder folder;
  EXPECT_TRUE(contains(regular_file_problem(folder.path().string()), "is a folder")) << regular_file_problem(folder.path().string());
  EXPECT_TRUE(contains(regular_file_problem("/dev/zero"), "is a device")) << regular_file_problem("/dev/zero");
  EXPECT_TRUE(contains(regular_file_problem(folder.file("missing")), "no such file; check the path"));
  EXPECT_THROW(open_regular_file("/dev/null"), InputFileError);
  EXPECT_EQ(regular_file_problem(make_file(folder, "ok")), "");
}

TEST(RegularFile, ASmallFileIsReadWholeAndALargerOneRefusedNamingTheLimit) {
  ScratchFolder folder;
  const std::string path = make_file(folder, "run.script");
  EXPECT_EQ(read_small_file(path, 5, "scripts"), "input");
  try {
    read_small_file(path, 4, "scripts");
    FAIL() << "a 5-byte file was read with a limit of 4";
  } catch (const InputFileError& error) {
    EXPECT_TRUE(contains(error.what(), "is larger than 4 bytes, the limit for scripts")) << error.what();
  }
  EXPECT_THROW(read_small_file("/dev/zero", 1 << 20, "scripts"), InputFileError);  // a device: never read
}

}  // namespace
}  // namespace gausslab
