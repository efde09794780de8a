// Image files: the real test images load with the right size and channel count; damaged or
// unsupported files give an ImageLoadError that names the file and the problem; saving round-trips
// and never overwrites.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gausslab/core/image_io.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;
using test::ScratchFolder;
using test::test_data_path;

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> folder_entries(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Loads `path`, expects an ImageLoadError, and returns its message ("" when something else happened).
std::string load_error(const std::string& path) {
  try {
    load_image(path);
    ADD_FAILURE() << path << " loaded without an error";
  } catch (const ImageLoadError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << " threw something else than ImageLoadError: " << e.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message without the file's path, so that a key word in the name ("truncated.jpg") does not count.
std::string without(std::string message, const std::string& path) {
  for (std::size_t at; !path.empty() && (at = message.find(path)) != std::string::npos;) message.erase(at, path.size());
  return message;
}

// ---- real images ----------------------------------------------------------------------------

struct RealImage {
  const char* file;
  int width, height, source_channels;
};

TEST(ImageLoad, RealTestImagesHaveTheirSizeAndChannelCount) {
  const RealImage images[] = {
      {"camera.png", 512, 512, 1},      {"astronaut.png", 512, 512, 3},
      {"chelsea.png", 451, 300, 3},     {"palette_color.png", 10, 10, 3},  // palette, no transparency → RGB
      {"hubble_deep_field.jpg", 1000, 872, 3},
  };
  for (const RealImage& expected : images) {
    const LoadedImage loaded = load_image(test_data_path(expected.file));
    EXPECT_EQ(loaded.image.width(), expected.width) << expected.file;
    EXPECT_EQ(loaded.image.height(), expected.height) << expected.file;
    EXPECT_EQ(loaded.source_channels, expected.source_channels) << expected.file;
    // Grey and RGB sources come with an opaque alpha channel.
    bool opaque = true;
    for (const Rgba8& p : loaded.image.pixels()) opaque = opaque && p.a == 255;
    EXPECT_TRUE(opaque) << expected.file;
  }
}

TEST(ImageLoad, GreyImageIsExpandedToEqualChannels) {
  const LoadedImage camera = load_image(test_data_path("camera.png"));
  bool grey = true, varied = false;
  for (const Rgba8& p : camera.image.pixels()) {
    grey = grey && p.r == p.g && p.g == p.b;
    varied = varied || p.r != camera.image.pixels().front().r;
  }
  EXPECT_TRUE(grey);
  EXPECT_TRUE(varied) << "camera.png decoded to a flat image";
}

TEST(ImageLoad, FromMemoryEqualsFromFile) {
  const std::string path = test_data_path("palette_color.png");
  const std::vector<unsigned char> bytes = read_bytes(path);
  const LoadedImage a = load_image(path);
  const LoadedImage b = load_image_from_memory(bytes.data(), bytes.size(), "palette in memory");
  EXPECT_EQ(a.image.pixels(), b.image.pixels());
  EXPECT_EQ(a.source_channels, b.source_channels);
}

// ---- bad files ------------------------------------------------------------------------------

TEST(ImageLoad, TruncatedJpegIsAClearError) {
  const std::string path = test_data_path("truncated.jpg");
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "truncated.jpg")) << message;
  EXPECT_TRUE(contains(without(message, path), "truncated")) << message;
}

TEST(ImageLoad, CutJpegIsAClearError) {
  // stb decodes some cut JPEGs without complaint (grey where data is missing); the loader must not.
  ScratchFolder folder;
  const std::vector<unsigned char> bytes = read_bytes(test_data_path("hubble_deep_field.jpg"));
  for (const double kept : {0.3, 0.6, 0.9, 0.999}) {
    const std::string path = folder.file("cut-" + std::to_string(static_cast<int>(kept * 1000)) + ".jpg");
    write_bytes(path, std::vector<unsigned char>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() * kept)));
    const std::string message = load_error(path);
    EXPECT_TRUE(contains(message, path)) << message;
    EXPECT_TRUE(contains(without(message, path), "truncated")) << message;
  }
}

TEST(ImageLoad, SixteenBitTiffIsRejectedWithAHint) {
  const std::string message = load_error(test_data_path("chessboard_GRAY_U16.tif"));
  EXPECT_TRUE(contains(message, "chessboard_GRAY_U16.tif")) << message;
  EXPECT_TRUE(contains(message, "TIFF")) << message;
  EXPECT_TRUE(contains(message, "not supported")) << message;
  EXPECT_TRUE(contains(message, "PNG")) << message << " (should say what to convert to)";
}

TEST(ImageLoad, EmptyFileIsAClearError) {
  ScratchFolder folder;
  const std::string path = folder.file("empty.png");
  write_bytes(path, {});
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "empty.png")) << message;
  EXPECT_TRUE(contains(message, "empty")) << message;
  EXPECT_TRUE(contains(message, "0 bytes")) << message;
}

TEST(ImageLoad, TextFileNamedPngIsAClearError) {
  ScratchFolder folder;
  const std::string path = folder.file("notes.png");
  const std::string text = "this is not a picture\n";
  write_bytes(path, {text.begin(), text.end()});
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "notes.png")) << message;
  EXPECT_TRUE(contains(message, "not an image")) << message;
  EXPECT_TRUE(contains(message, "PNG, JPEG")) << message << " (should list the supported formats)";
}

TEST(ImageLoad, MissingPathIsAClearError) {
  ScratchFolder folder;
  const std::string path = folder.file("no-such-picture.png");
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "no-such-picture.png")) << message;
  EXPECT_TRUE(contains(message, "no such file")) << message;
}

TEST(ImageLoad, FolderIsAClearError) {
  ScratchFolder folder;
  const std::string message = load_error(folder.path().string());
  EXPECT_TRUE(contains(message, folder.path().string())) << message;
  EXPECT_TRUE(contains(message, "folder")) << message;
}

TEST(ImageLoad, CutPngIsAClearError) {
  ScratchFolder folder;
  std::vector<unsigned char> bytes = read_bytes(test_data_path("camera.png"));
  bytes.resize(bytes.size() / 2);
  const std::string path = folder.file("half.png");
  write_bytes(path, bytes);
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "half.png")) << message;
  EXPECT_TRUE(contains(without(message, path), "truncated")) << message;
}

TEST(ImageLoad, DamagedBytesNeverCrash) {
  // Random corruption of a small PNG and a JPEG header: each either loads (stb tolerates some damage)
  // or throws ImageLoadError; anything else — another exception, a crash — fails.
  for (const char* name : {"palette_color.png", "truncated.jpg"}) {
    const std::vector<unsigned char> original = read_bytes(test_data_path(name));
    std::mt19937 rng(42);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<unsigned char> bytes = original;
      const int flips = 1 + trial % 8;
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<unsigned char>(rng());
      if (trial % 3 == 0) bytes.resize(rng() % bytes.size() + 1);
      try {
        const LoadedImage loaded = load_image_from_memory(bytes.data(), bytes.size(), name);
        EXPECT_FALSE(loaded.image.empty()) << name << " trial " << trial;
      } catch (const ImageLoadError& e) {
        EXPECT_TRUE(contains(e.what(), name)) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << " trial " << trial << ": unexpected exception " << e.what();
      }
    }
  }
}

TEST(ImageLoad, EmptyMemoryBufferIsAClearError) {
  try {
    load_image_from_memory(nullptr, 0, "clipboard");
    FAIL() << "an empty buffer loaded";
  } catch (const ImageLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "clipboard")) << e.what();
    EXPECT_TRUE(contains(e.what(), "empty")) << e.what();
  }
}

// ---- saving ---------------------------------------------------------------------------------

// What a file written with `channels` of an RGBA8 pixel gives back when loaded.
Rgba8 expected_after_round_trip(const Rgba8& p, int channels, bool keeps_alpha) {
  switch (channels) {
    case 1: return {p.r, p.r, p.r, 255};
    case 2: return {p.r, p.r, p.r, keeps_alpha ? p.a : std::uint8_t{255}};
    case 3: return {p.r, p.g, p.b, 255};
    default: return p;
  }
}

TEST(ImageSave, PngRoundTripsOneToFourChannels) {
  ScratchFolder folder;
  const ImageRgba8 image = make_random_rgba8(17, 11, 3);
  for (int channels = 1; channels <= 4; ++channels) {
    const std::string path = folder.file("round-trip-" + std::to_string(channels) + ".png");
    save_image(path, image, channels);
    const LoadedImage loaded = load_image(path);
    EXPECT_EQ(loaded.source_channels, channels);
    ASSERT_EQ(loaded.image.width(), 17);
    ASSERT_EQ(loaded.image.height(), 11);
    for (std::size_t i = 0; i < image.pixel_count(); ++i)
      ASSERT_TRUE(loaded.image.data()[i] == expected_after_round_trip(image.data()[i], channels, true))
          << channels << " channels, pixel " << i;
  }
}

TEST(ImageSave, BmpRoundTripsOneToFourChannels) {
  // BMP as stb writes it: 24-bit for 1 and 3 channels (grey expanded to RGB), 32-bit with alpha
  // for 4, and for grey + alpha too (saved as RGBA so that the alpha is not lost).
  ScratchFolder folder;
  const ImageRgba8 image = make_random_rgba8(13, 7, 4);  // odd width: rows need padding in BMP
  for (int channels = 1; channels <= 4; ++channels) {
    const std::string path = folder.file("round-trip-" + std::to_string(channels) + ".BMP");
    save_image(path, image, channels);
    const LoadedImage loaded = load_image(path);
    EXPECT_EQ(loaded.source_channels, channels == 4 || channels == 2 ? 4 : 3) << channels << " channels";
    ASSERT_EQ(loaded.image.width(), 13);
    ASSERT_EQ(loaded.image.height(), 7);
    for (std::size_t i = 0; i < image.pixel_count(); ++i)
      ASSERT_TRUE(loaded.image.data()[i] == expected_after_round_trip(image.data()[i], channels, true))
          << channels << " channels, pixel " << i;
  }
}

TEST(ImageSave, NeverOverwritesAndLeavesNoTemporaryFile) {
  ScratchFolder folder;
  const std::string path = folder.file("result.png");
  const ImageRgba8 first = make_random_rgba8(8, 8, 1);
  const ImageRgba8 second = make_random_rgba8(8, 8, 2);
  save_image(path, first, 4);
  const std::vector<unsigned char> original = read_bytes(path);
  try {
    save_image(path, second, 4, Overwrite::Never);
    FAIL() << "an existing file was overwritten";
  } catch (const ImageSaveError& e) {
    EXPECT_TRUE(contains(e.what(), "result.png")) << e.what();
    EXPECT_TRUE(contains(e.what(), "already exists")) << e.what();
  }
  EXPECT_EQ(read_bytes(path), original) << "the existing file changed";
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"result.png"}) << "a temporary file was left";

  save_image(path, second, 4, Overwrite::Allowed);
  EXPECT_EQ(load_image(path).image.pixels(), second.pixels());
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"result.png"}) << "a temporary file was left";
}

TEST(ImageSave, RejectsBadArgumentsWithoutWriting) {
  ScratchFolder folder;
  const ImageRgba8 image = make_random_rgba8(4, 4, 1);
  EXPECT_THROW(save_image(folder.file("a.png"), image, 0), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("b.png"), image, 5), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("c.png"), ImageRgba8(), 4), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("d.jpg"), image, 4), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("missing-folder/e.png"), image, 4), ImageSaveError);
  EXPECT_TRUE(folder_entries(folder.path()).empty()) << "a refused save left a file";
}

TEST(ImageSave, FirstFreePathCountsUp) {
  ScratchFolder folder;
  const std::string path = folder.file("shot.png");
  EXPECT_EQ(first_free_path(path), path);
  write_bytes(path, {1});
  EXPECT_EQ(first_free_path(path), folder.file("shot-2.png"));
  write_bytes(folder.file("shot-2.png"), {1});
  write_bytes(folder.file("shot-3.png"), {1});
  EXPECT_EQ(first_free_path(path), folder.file("shot-4.png"));
}

TEST(ImageSave, CheckOutputPathExplainsEachProblem) {
  ScratchFolder folder;
  EXPECT_EQ(check_output_path(folder.file("fine.png"), Overwrite::Never), "");
  EXPECT_EQ(check_output_path(folder.file("fine.BMP"), Overwrite::Never), "");

  EXPECT_TRUE(contains(check_output_path("", Overwrite::Never), "empty"));

  const std::string jpg = check_output_path(folder.file("photo.jpg"), Overwrite::Never);
  EXPECT_TRUE(contains(jpg, "photo.jpg")) << jpg;
  EXPECT_TRUE(contains(jpg, ".jpg")) << jpg;
  EXPECT_TRUE(contains(jpg, ".png or .bmp")) << jpg;

  const std::string no_extension = check_output_path(folder.file("photo"), Overwrite::Never);
  EXPECT_TRUE(contains(no_extension, ".png or .bmp")) << no_extension;

  const std::string missing = check_output_path(folder.file("nowhere/out.png"), Overwrite::Never);
  EXPECT_TRUE(contains(missing, "does not exist")) << missing;
  EXPECT_TRUE(contains(missing, "nowhere")) << missing;

  fs::create_directory(folder.path() / "looks-like.png");
  const std::string is_folder = check_output_path(folder.file("looks-like.png"), Overwrite::Allowed);
  EXPECT_TRUE(contains(is_folder, "is a folder")) << is_folder;

  write_bytes(folder.file("taken.png"), {1});
  const std::string taken = check_output_path(folder.file("taken.png"), Overwrite::Never);
  EXPECT_TRUE(contains(taken, "already exists")) << taken;
  EXPECT_EQ(check_output_path(folder.file("taken.png"), Overwrite::Allowed), "");
}

}  // namespace
}  // namespace gausslab
