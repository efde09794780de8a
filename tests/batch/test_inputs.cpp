// Expanding a batch's inputs: files, folders (recursive or not), patterns and lists (names exactly as
// written, comments only with --list-comments, NUL-terminated names, binary data and endless input
// refused within the limits, a list file by core's opening rule).
#include <gtest/gtest.h>

#include <sys/stat.h>

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

InputSpec spec(std::vector<std::string> items, std::string list_file, bool recursive, ListFormat format = {}) {
  InputSpec result;
  result.items = std::move(items);
  result.list_file = std::move(list_file);
  result.recursive = recursive;
  result.list_format = format;
  return result;
}

TEST(Inputs, AFolderGivesItsImageFilesSortedAndNotesItsSubfolders) {
  test::ScratchFolder scratch;
  touch(scratch.file("b.PNG"), "12345");
  touch(scratch.file("a.jpg"));
  touch(scratch.file("notes.txt"));
  touch(scratch.file("sub/c.bmp"));
  std::vector<std::string> notes;
  const std::vector<InputFile> files = expand(spec({scratch.path().string()}, "", false), "", notes);
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
  const std::vector<InputFile> files = expand(spec({scratch.path().string()}, "", true), "", notes);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].relative_stem, "top");
  EXPECT_EQ(files[1].relative_stem, "trip/day1/cat");
  for (const InputFile& file : files) EXPECT_EQ(file.folder, scratch.path().string()) << "the folder it was found in";
  EXPECT_TRUE(notes.empty());
  const std::vector<InputFile> named = expand(spec({scratch.file("top.png")}, "", true), "", notes);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].folder, "") << "a file named itself was found in no folder";
}

TEST(Inputs, PatternsExpandSortedAndOneWithoutMatchesIsRefused) {
  test::ScratchFolder scratch;
  touch(scratch.file("x2.png"));
  touch(scratch.file("x1.png"));
  touch(scratch.file("y.png"));
  std::vector<std::string> notes;
  EXPECT_EQ(paths_of(expand(spec({scratch.file("x*.png")}, "", false), "", notes)),
            (std::vector<std::string>{scratch.file("x1.png"), scratch.file("x2.png")}));
  EXPECT_THROW(expand(spec({scratch.file("z*.png")}, "", false), "", notes), UsageError);
}

TEST(Inputs, ListNamesAreTakenExactlyAsWritten) {
  test::ScratchFolder scratch;
  touch(scratch.file("a.png"));
  std::vector<std::string> notes;
  // Spaces are part of a name (the line " lead.png" once filtered "lead.png"), a '#' too without
  // --list-comments; "\r\n" ends a line as "\n" does, and empty lines name nothing.
  const std::string list = scratch.file("a.png") + "\r\n\n " + scratch.file("lead.png") + "\n" +
                           scratch.file("trail.png ") + "\n#" + scratch.file("hash.png") + "\n" +
                           scratch.file("missing.png");
  const std::vector<InputFile> files = expand(spec({}, "-", false), list, notes);
  // A named file is taken as it is, even when missing: it fails with its reason when read.
  EXPECT_EQ(paths_of(files), (std::vector<std::string>{scratch.file("a.png"), " " + scratch.file("lead.png"),
                                                       scratch.file("trail.png "), "#" + scratch.file("hash.png"),
                                                       scratch.file("missing.png")}));
  EXPECT_EQ(files[4].size_bytes, 0u);
  EXPECT_THROW(expand(spec({}, "-", false), "\n\n", notes), UsageError);
  EXPECT_THROW(expand(spec({}, scratch.file("no-list.txt"), false), "", notes), UsageError);
}

TEST(Inputs, ListCommentsAreSkippedOnlyWithListComments) {
  test::ScratchFolder scratch;
  std::vector<std::string> notes;
  const InputSpec with_comments = spec({}, "-", false, ListFormat{true, false});
  const std::string list = "# my files\n" + scratch.file("a.png") + "\n #not a comment\n";
  EXPECT_EQ(paths_of(expand(with_comments, list, notes)),
            (std::vector<std::string>{scratch.file("a.png"), " #not a comment"}));
  EXPECT_THROW(expand(with_comments, "# nothing\n\n", notes), UsageError);
}

TEST(Inputs, AListedNameIsNeverAPattern) {
  test::ScratchFolder scratch;
  touch(scratch.file("x1.png"));
  std::vector<std::string> notes;
  EXPECT_EQ(paths_of(expand(spec({}, "-", false), scratch.file("x*.png") + "\n", notes)),
            std::vector<std::string>{scratch.file("x*.png")});
}

TEST(Inputs, ANulTerminatedListHoldsNamesWithNewlines) {
  std::vector<std::string> notes;
  const std::string list("a\nb.png\0 c.png\0", 16);
  EXPECT_EQ(paths_of(expand(spec({}, "-", false, ListFormat{false, true}), list, notes)),
            (std::vector<std::string>{"a\nb.png", " c.png"}));
}

// Bytes without end, as /dev/zero or /dev/urandom give them through a pipe; counts what was read.
class EndlessBytes : public std::streambuf {
 public:
  explicit EndlessBytes(std::string pattern) : pattern_(std::move(pattern)) {}
  std::size_t consumed = 0;

 protected:
  int_type underflow() override {
    buffer_.clear();
    while (buffer_.size() < 4096) buffer_ += pattern_;
    consumed += buffer_.size();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + buffer_.size());
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  std::string pattern_;
  std::string buffer_;
};

// The message of the UsageError that expanding `bytes` from standard input throws; how much was read.
std::string list_refusal(EndlessBytes& bytes, const ListFormat& format = {}, const ListLimits& limits = {}) {
  std::istream in(&bytes);
  std::vector<std::string> notes;
  try {
    expand_inputs(spec({}, "-", false, format), in, notes, limits);
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "an endless list was accepted";
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Inputs, BinaryDataIsRefusedAtItsFirstNulByte) {
  EndlessBytes zeros(std::string(1, '\0'));
  std::string message = list_refusal(zeros);
  EXPECT_TRUE(contains(message, "--from-list: standard input holds a NUL byte on line 1")) << message;
  EXPECT_TRUE(contains(message, "--list-null")) << message;
  EXPECT_LE(zeros.consumed, 1u << 17) << "read well past the first byte";
  EndlessBytes random(std::string("\x93\x17k\n\xfe\x00\x42", 7));  // a NUL on its second line
  message = list_refusal(random);
  EXPECT_TRUE(contains(message, "NUL byte on line 2")) << message;
}

TEST(Inputs, AListBeyondItsLimitsIsRefusedAsSoonAsItPassesOne) {
  EndlessBytes one_line(std::string(1, 'a'));
  std::string message = list_refusal(one_line);
  EXPECT_TRUE(contains(message, "standard input line 1 is longer than 4095 bytes")) << message;
  EXPECT_LE(one_line.consumed, 1u << 17);
  EndlessBytes many_names("a.png\n");
  ListLimits few;
  few.max_names = 1000;
  message = list_refusal(many_names, {}, few);
  EXPECT_TRUE(contains(message, "names more than 1000 files")) << message;
  EXPECT_LE(many_names.consumed, 1u << 17);
  // The NUL-terminated form has no binary test: the limits bound it (here the total size).
  EndlessBytes zeros_with_null(std::string("name", 4) + std::string(1, '\0'));
  ListLimits small;
  small.max_list_bytes = 1u << 20;
  message = list_refusal(zeros_with_null, ListFormat{false, true}, small);
  EXPECT_TRUE(contains(message, "is larger than 1 MiB, the limit for a list")) << message;
  EXPECT_LE(zeros_with_null.consumed, (1u << 20) + (1u << 17));
}

TEST(Inputs, AListFileByCoresOpeningRule) {
  test::ScratchFolder scratch;
  std::vector<std::string> notes;
  const std::string fifo = scratch.file("list.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {  // with no writer: refused at once (this test would hang otherwise)
    expand(spec({}, fifo, false), "", notes);
    FAIL() << "a FIFO was read as a list";
  } catch (const UsageError& error) {
    EXPECT_TRUE(contains(error.what(), "is a FIFO")) << error.what();
    EXPECT_TRUE(contains(error.what(), "give --from-list - and send it to standard input")) << error.what();
  }
  EXPECT_THROW(expand(spec({}, "/dev/zero", false), "", notes), UsageError);
  EXPECT_THROW(expand(spec({}, "/dev/urandom", false), "", notes), UsageError);
  touch(scratch.file("list.txt"), " spaced.png\n");
  EXPECT_EQ(paths_of(expand(spec({}, scratch.file("list.txt"), false), "", notes)), std::vector<std::string>{" spaced.png"});
}

TEST(Inputs, AFolderWithoutImagesAndNoInputAtAllAreRefused) {
  test::ScratchFolder scratch;
  touch(scratch.file("readme.txt"));
  std::vector<std::string> notes;
  EXPECT_THROW(expand(spec({scratch.path().string()}, "", false), "", notes), UsageError);
  EXPECT_THROW(expand(spec({}, "", false), "", notes), UsageError);
}

TEST(Inputs, ImageExtensionsAreRecognisedInAnyCase) {
  EXPECT_TRUE(has_image_extension("a/B.JPEG"));
  EXPECT_TRUE(has_image_extension("x.tga"));
  EXPECT_TRUE(has_image_extension("x.pam"));
  for (const char* typed : {"x.exr", "x.PFM", "x.fits", "x.fit", "x.fts", "x.npy"}) EXPECT_TRUE(has_image_extension(typed)) << typed;
  EXPECT_FALSE(has_image_extension("x.txt"));
  EXPECT_FALSE(has_image_extension("png"));
}

}  // namespace
}  // namespace gausslab
