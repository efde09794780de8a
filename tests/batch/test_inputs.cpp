// Expanding a batch's inputs: files, folders (recursive or not), patterns and list files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gausslab/batch/inputs.hpp"
#include "gausslab/core/cli_args.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;

void touch(const std::string& path, const std::string& content = "x") {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << content;
}

std::vector<std::string> paths_of(const std::vector<InputFile>& files) {
  std::vector<std::string> paths;
  for (const InputFile& file : files) paths.push_back(file.path);
  return paths;
}

std::vector<InputFile> expand(const InputSpec& spec, const std::string& list_text, std::vector<std::string>& notes) {
  std::istringstream in(list_text);
  return expand_inputs(spec, in, notes);
}

TEST(Inputs, AFolderGivesItsImageFilesSortedAndNotesItsSubfolders) {
  test::ScratchFolder scratch;
  touch(scratch.file("b.PNG"), "12345");
  touch(scratch.file("a.jpg"));
  touch(scratch.file("notes.txt"));
  touch(scratch.file("sub/c.bmp"));
  std::vector<std::string> notes;
  const std::vector<InputFile> files = expand({{scratch.path().string()}, "", false}, "", notes);
  EXPECT_EQ(paths_of(files), (std::vector<std::string>{scratch.file("a.jpg"), scratch.file("b.PNG")}));
  EXPECT_EQ(files[1].relative_stem, "b");
  EXPECT_EQ(files[1].size_bytes, 5u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("--recursive"), std::string::npos) << notes[0];
}

TEST(Inputs, RecursiveKeepsTheTreeInTheOutputNames) {
  test::ScratchFolder scratch;
  touch(scratch.file("top.png"));
  touch(scratch.file("trip/day1/cat.jpg"));
  std::vector<std::string> notes;
  const std::vector<InputFile> files = expand({{scratch.path().string()}, "", true}, "", notes);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].relative_stem, "top");
  EXPECT_EQ(files[1].relative_stem, "trip/day1/cat");
  EXPECT_TRUE(notes.empty());
}

TEST(Inputs, PatternsExpandSortedAndOneWithoutMatchesIsRefused) {
  test::ScratchFolder scratch;
  touch(scratch.file("x2.png"));
  touch(scratch.file("x1.png"));
  touch(scratch.file("y.png"));
  std::vector<std::string> notes;
  EXPECT_EQ(paths_of(expand({{scratch.file("x*.png")}, "", false}, "", notes)),
            (std::vector<std::string>{scratch.file("x1.png"), scratch.file("x2.png")}));
  EXPECT_THROW(expand({{scratch.file("z*.png")}, "", false}, "", notes), UsageError);
}

TEST(Inputs, ListFromStandardInputSkipsBlankAndCommentLines) {
  test::ScratchFolder scratch;
  touch(scratch.file("a.png"));
  std::vector<std::string> notes;
  const std::string list = "# my files\r\n\n  " + scratch.file("a.png") + "  \r\n" + scratch.file("missing.png") + "\n";
  const std::vector<InputFile> files = expand({{}, "-", false}, list, notes);
  // A named file is taken as it is, even when missing: it fails with its reason when read.
  EXPECT_EQ(paths_of(files), (std::vector<std::string>{scratch.file("a.png"), scratch.file("missing.png")}));
  EXPECT_EQ(files[1].size_bytes, 0u);
  EXPECT_THROW(expand({{}, "-", false}, "# nothing\n\n", notes), UsageError);
  EXPECT_THROW(expand({{}, scratch.file("no-list.txt"), false}, "", notes), UsageError);
}

TEST(Inputs, AFolderWithoutImagesAndNoInputAtAllAreRefused) {
  test::ScratchFolder scratch;
  touch(scratch.file("readme.txt"));
  std::vector<std::string> notes;
  EXPECT_THROW(expand({{scratch.path().string()}, "", false}, "", notes), UsageError);
  EXPECT_THROW(expand({{}, "", false}, "", notes), UsageError);
}

TEST(Inputs, ImageExtensionsAreRecognisedInAnyCase) {
  EXPECT_TRUE(has_image_extension("a/B.JPEG"));
  EXPECT_TRUE(has_image_extension("x.tga"));
  EXPECT_TRUE(has_image_extension("x.pam"));
  EXPECT_FALSE(has_image_extension("x.txt"));
  EXPECT_FALSE(has_image_extension("png"));
}

}  // namespace
}  // namespace gausslab
