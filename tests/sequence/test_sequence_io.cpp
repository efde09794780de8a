// Sequence inputs and outputs: 16-bit PNG frames keep their 16 bits, folders come in natural
// order, the .npy header is what NumPy reads, and nothing is ever half-written or overwritten.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gausslab/sequence/frame_io.hpp"
#include "gausslab/sequence/frame_source.hpp"
#include "gausslab/sequence/npy_writer.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool no_temporary_files(const fs::path& folder) {
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return false;
  return true;
}

TEST(SequenceIo, SixteenBitPngFramesKeepTheirSixteenBits) {
  test::ScratchFolder scratch;
  ImageF32 image(5, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) image.at(x, y) = static_cast<float>(1000 + 7 * x + 1000 * y) / 65535.0f;
  const std::string path = scratch.file("f.png");
  save_grey_png16(path, image, Overwrite::Never);
  const ImageF32 back = load_grey_frame(path);
  ASSERT_EQ(back.width(), 5);
  ASSERT_EQ(back.height(), 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)  // levels 7 apart survive: 8 bits would merge them
      EXPECT_FLOAT_EQ(back.at(x, y) * 65535.0f, static_cast<float>(1000 + 7 * x + 1000 * y));
}

TEST(SequenceIo, EightBitAndColourPngFramesBecomeGreyLikeTheLoader) {
  const std::string path = test::test_data_path("chelsea.png");
  const ImageF32 ours = load_grey_frame(path);
  const ImageF32 loader = to_grey_f32(load_image_rgba8(path).image);
  ASSERT_EQ(ours.width(), loader.width());
  ASSERT_EQ(ours.height(), loader.height());
  for (std::size_t i = 0; i < ours.pixel_count(); ++i) ASSERT_NEAR(ours.data()[i], loader.data()[i], 1e-6);
}

TEST(SequenceIo, ADamagedPngIsAClearError) {
  test::ScratchFolder scratch;
  const std::string path = scratch.file("bad.png");
  std::ofstream(path) << "\x89PNG\r\n\x1a\n but then nothing useful";
  try {
    load_grey_frame(path);
    FAIL() << "no error";
  } catch (const ImageLoadError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.png"), std::string::npos) << error.what();
  }
}

TEST(SequenceIo, AFolderIsReadInNaturalOrderAndOtherFilesAreNamed) {
  test::ScratchFolder scratch;
  for (int i : {10, 2, 1}) {
    ImageF32 frame(16, 16, static_cast<float>(i) / 100.0f);
    save_grey_png16(scratch.file("frame_" + std::to_string(i) + ".png"), frame, Overwrite::Never);
  }
  std::ofstream(scratch.file("notes.txt")) << "not a frame";
  const auto source = open_frame_folder(scratch.path().string());
  EXPECT_EQ(source->frame_count(), 3);
  ASSERT_EQ(source->notes().size(), 1u);
  EXPECT_NE(source->notes()[0].find("notes.txt"), std::string::npos);
  std::vector<std::string> names;
  while (auto f = source->next()) {
    names.push_back(f->name);
    EXPECT_TRUE(f->error.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"frame_1.png", "frame_2.png", "frame_10.png"}));
  source->rewind();
  EXPECT_EQ(source->next()->name, "frame_1.png");
}

TEST(SequenceIo, AnUnreadableFrameComesBackWithItsReasonAndTheSourceGoesOn) {
  test::ScratchFolder scratch;
  save_grey_png16(scratch.file("a1.png"), ImageF32(16, 16, 0.5f), Overwrite::Never);
  std::ofstream(scratch.file("a2.png")) << "garbage";
  save_grey_png16(scratch.file("a3.png"), ImageF32(16, 16, 0.5f), Overwrite::Never);
  const auto source = open_frame_folder(scratch.path().string());
  std::vector<bool> failed;
  while (auto f = source->next()) failed.push_back(!f->error.empty());
  EXPECT_EQ(failed, (std::vector<bool>{false, true, false}));
}

TEST(SequenceIo, InputsThatAreNoSequenceAreRefusedWithWhatToDo) {
  test::ScratchFolder scratch;
  EXPECT_THROW(open_sequence_input({scratch.file("missing")}), SequenceInputError);
  EXPECT_THROW(open_sequence_input({scratch.path().string()}), SequenceInputError);  // empty folder
  save_grey_png16(scratch.file("one.png"), ImageF32(16, 16, 0.5f), Overwrite::Never);
  try {
    open_sequence_input({scratch.file("one.png")});
    FAIL() << "a single image was taken as a sequence";
  } catch (const SequenceInputError& error) {
    EXPECT_NE(std::string(error.what()).find("single image"), std::string::npos);
  }
  std::ofstream(scratch.file("clip.mp4")) << "not a video";
  EXPECT_THROW(open_sequence_input({scratch.file("clip.mp4")}), SequenceInputError);
}

TEST(SequenceIo, TheNpyHeaderIsVersionOneAndAlignsTheData) {
  const std::string h = NpyFrameWriter::header(3, 120, 160);
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(0, 6), "\x93NUMPY");
  EXPECT_NE(h.find("'descr': '<f4', 'fortran_order': False, 'shape': (3, 120, 160), }"), std::string::npos);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_EQ(static_cast<std::size_t>(static_cast<unsigned char>(h[8]) | (static_cast<unsigned char>(h[9]) << 8)),
            h.size() - 10);
}

TEST(SequenceIo, AnNpyFileAppearsWholeOrNotAtAll) {
  test::ScratchFolder scratch;
  const std::string path = scratch.file("w.npy");
  {
    NpyFrameWriter writer(path, 2, 2, 3, Overwrite::Never);
    const float frame[6] = {1, 2, 3, 4, 5, 6};
    writer.append(frame);
    EXPECT_THROW(writer.commit(), ImageSaveError);  // one frame short
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(no_temporary_files(scratch.path()));
  {
    NpyFrameWriter writer(path, 2, 2, 3, Overwrite::Never);
    const float frame[6] = {1, 2, 3, 4, 5, 6};
    writer.append(frame);
    writer.append(nullptr);
    writer.commit();
  }
  const std::string bytes = read_all(path);
  ASSERT_EQ(bytes.size(), NpyFrameWriter::header(2, 2, 3).size() + 12 * sizeof(float));
  float first = 0;
  std::memcpy(&first, bytes.data() + NpyFrameWriter::header(2, 2, 3).size(), sizeof(float));
  EXPECT_EQ(first, 1.0f);
}

TEST(SequenceIo, StagedFilesNeverReplaceAnExistingFileUnlessAllowed) {
  test::ScratchFolder scratch;
  const std::string path = scratch.file("out.csv");
  write_staged(path, "first", Overwrite::Never);
  EXPECT_THROW(write_staged(path, "second", Overwrite::Never), ImageSaveError);
  EXPECT_EQ(read_all(path), "first");
  write_staged(path, "third", Overwrite::Allowed);
  EXPECT_EQ(read_all(path), "third");
  EXPECT_TRUE(no_temporary_files(scratch.path()));
  EXPECT_THROW(write_staged(scratch.file("no/such/folder/x.csv"), "x", Overwrite::Never), ImageSaveError);
}

}  // namespace
}  // namespace gausslab
