// Pixels in memory the caller owns: the 8-bit encoders writing from an RGBA8 view (the batch's
// pinned buffers), the BMP decoder writing into a PixelTarget's memory, and the storage that is
// not zero-filled first (HostImage::uninitialized, read_image_bytes). Each must give the bytes
// and pixels of the ordinary path exactly.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

std::vector<unsigned char> streamed_rgba8(const ConstImageView& view, int channels, ImageFormat format) {
  std::vector<unsigned char> bytes;
  encode_rgba8_to(view, channels, format, 85, [&](const void* data, std::size_t size) {
    bytes.insert(bytes.end(), static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + size);
  });
  return bytes;
}

TEST(ImageMemory, AnRgba8ViewWithAPitchOfItsOwnEncodesAsTheImageDoesInEveryFormat) {
  // Rows of 13 pixels 16 apart in a buffer of the caller's, the gaps filled with a pattern that
  // must not reach the file.
  const ImageRgba8 image = make_random_rgba8(13, 7, 21u);
  const int pitch_pixels = 16;
  std::vector<Rgba8> lent(static_cast<std::size_t>(pitch_pixels) * 7, Rgba8{1, 2, 3, 4});
  for (int y = 0; y < 7; ++y) std::memcpy(&lent[static_cast<std::size_t>(y) * pitch_pixels], &image.at(0, y), image.pitch_bytes());
  const ConstImageView view(lent.data(), 13, 7, pitch_pixels * sizeof(Rgba8), PixelFormat::Rgba8);
  int cases = 0;
  for (int f = 0; f < static_cast<int>(ImageFormat::Count); ++f) {
    const ImageFormat format = static_cast<ImageFormat>(f);
    if (!format_writes(format, SampleType::U8)) continue;
    for (int channels : {1, 2, 3, 4}) {
      SCOPED_TRACE(std::string(to_string(format)) + ", " + std::to_string(channels) + " channels");
      EXPECT_EQ(streamed_rgba8(view, channels, format), encode_image(image, channels, format, 85));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 8 * 4);
  const HostImage f32(4, 4, PixelFormat::F32);
  EXPECT_THROW(streamed_rgba8(f32.view(), 1, ImageFormat::Bmp), ImageSaveError);  // not RGBA8
  EXPECT_THROW(streamed_rgba8(view, 0, ImageFormat::Bmp), ImageSaveError);
}

TEST(ImageMemory, BmpRowsGoOutInPiecesThatAtomicFileWritesUncopied) {
  // 1000 rows of 4,500 bytes (4.5 MB): pieces of whole rows, each at least AtomicFile's direct
  // write size (so it is written from the encoder's memory), never the whole file at once, and
  // the bytes those of the whole encoding.
  const ImageRgba8 image = make_random_rgba8(1500, 1000, 31u);
  const std::vector<unsigned char> whole = encode_image(image, 3, ImageFormat::Bmp);
  std::vector<unsigned char> streamed;
  std::vector<std::size_t> sizes;
  encode_image_to(image, 3, ImageFormat::Bmp, 90, [&](const void* data, std::size_t size) {
    streamed.insert(streamed.end(), static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + size);
    sizes.push_back(size);
  });
  EXPECT_EQ(streamed, whole);
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_EQ(sizes.front(), 54u);  // the headers
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    EXPECT_GE(sizes[i], AtomicFile::kDirectWriteBytes) << i;
    EXPECT_LT(sizes[i], whole.size() / 2) << i;
    EXPECT_EQ(sizes[i] % 4500u, 0u) << i;  // whole rows
  }
}

// A BMP of `image` with `channels` (3: 24-bit, 4: 32-bit with alpha), in memory.
std::vector<unsigned char> bmp_of(const ImageRgba8& image, int channels) {
  return encode_image(image, channels, ImageFormat::Bmp);
}

TEST(ImageMemory, TheBmpDecoderWritesIntoTheTargetsMemoryTheSamePixels) {
  const ImageRgba8 image = make_random_rgba8(37, 5, 9u);
  for (int channels : {3, 4}) {
    SCOPED_TRACE(channels);
    const std::vector<unsigned char> file = bmp_of(image, channels);
    int own_channels = 0;
    const LoadedImage own = load_image_from_memory(file.data(), file.size(), "own.bmp", {}, own_channels);
    std::vector<unsigned char> memory(37 * 5 * 4, 0xEE);
    int calls = 0;
    const PixelTarget target = [&](int width, int height, PixelFormat format) {
      ++calls;
      EXPECT_EQ(width, 37);
      EXPECT_EQ(height, 5);
      EXPECT_EQ(format, PixelFormat::Rgba8);
      return ImageView{memory.data(), width, height, static_cast<std::size_t>(width) * 4, format};
    };
    int target_channels = 0;
    const LoadedImage into = load_image_from_memory(file.data(), file.size(), "into.bmp", {}, target_channels, target);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(target_channels, own_channels);
    EXPECT_EQ(target_channels, channels);
    EXPECT_TRUE(into.image.empty());
    ASSERT_EQ(into.decoded_into.data, memory.data());
    ASSERT_EQ(own.image.size_bytes(), memory.size());
    EXPECT_EQ(std::memcmp(own.image.data(), memory.data(), memory.size()), 0);  // every byte written, as its own
  }
}

TEST(ImageMemory, AnEmptyTargetOrAnotherFormatLeavesTheDecoderToAllocate) {
  const ImageRgba8 image = make_random_rgba8(6, 4, 3u);
  const std::vector<unsigned char> bmp = bmp_of(image, 3);
  int channels = 0;
  const LoadedImage declined = load_image_from_memory(bmp.data(), bmp.size(), "declined.bmp", {}, channels,
                                                      [](int, int, PixelFormat) { return ImageView{}; });
  EXPECT_TRUE(declined.decoded_into.empty());
  ASSERT_EQ(declined.image.width(), 6);
  EXPECT_EQ(declined.image.row<Rgba8>(1)[2], (Rgba8{image.at(2, 1).r, image.at(2, 1).g, image.at(2, 1).b, 255}));

  const std::vector<unsigned char> png = encode_image(image, 3, ImageFormat::Png);
  int calls = 0;
  const LoadedImage other = load_image_from_memory(png.data(), png.size(), "other.png", {}, channels,
                                                   [&](int, int, PixelFormat) {
                                                     ++calls;
                                                     return ImageView{};
                                                   });
  EXPECT_EQ(calls, 0);  // only the BMP decoder decodes into a target
  EXPECT_TRUE(other.decoded_into.empty());
  EXPECT_EQ(other.image.width(), 6);

  // A wrong view is a programming error, never pixels written out of bounds.
  std::vector<unsigned char> small(4 * 4 * 4);
  EXPECT_THROW(load_image_from_memory(bmp.data(), bmp.size(), "small.bmp", {}, channels,
                                      [&](int, int, PixelFormat format) {
                                        return ImageView{small.data(), 4, 4, 16, format};
                                      }),
               std::logic_error);
}

TEST(ImageMemory, ATruncatedBmpIsRefusedBeforeTheTargetIsAsked) {
  const std::vector<unsigned char> bmp = bmp_of(make_random_rgba8(8, 8, 4u), 3);
  int calls = 0, channels = 0;
  EXPECT_THROW(load_image_from_memory(bmp.data(), bmp.size() - 40, "cut.bmp", {}, channels,
                                      [&](int, int, PixelFormat) {
                                        ++calls;
                                        return ImageView{};
                                      }),
               ImageLoadError);
  EXPECT_EQ(calls, 0);
}

TEST(ImageMemory, UninitialisedImagesHaveTheirSizeAndRefuseWhatTheConstructorRefuses) {
  const HostImage image = HostImage::uninitialized(5, 3, PixelFormat::Rgb16);
  EXPECT_EQ(image.width(), 5);
  EXPECT_EQ(image.height(), 3);
  EXPECT_EQ(image.format(), PixelFormat::Rgb16);
  EXPECT_EQ(image.size_bytes(), 5u * 3u * 6u);
  EXPECT_EQ(HostImage(5, 3, PixelFormat::Rgb16).size_bytes(), image.size_bytes());
  EXPECT_THROW(HostImage::uninitialized(-1, 3, PixelFormat::Rgba8), std::invalid_argument);
  const HostImage zeroed(4, 2, PixelFormat::F32);  // the constructor still zero-fills
  for (int i = 0; i < 8; ++i) EXPECT_EQ(zeroed.row<float>(0)[i], 0.0f);
}

TEST(ImageMemory, ReadImageBytesReturnsExactlyTheFilesBytes) {
  test::ScratchFolder scratch;
  const ImageRgba8 image = make_random_rgba8(300, 200, 12u);  // larger than the first read of 64 KiB
  const std::vector<unsigned char> file = bmp_of(image, 3);
  const std::string path = scratch.file("read.bmp");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  const UninitializedBytes bytes = read_image_bytes(path);
  ASSERT_EQ(bytes.size(), file.size());
  EXPECT_EQ(std::memcmp(bytes.data(), file.data(), file.size()), 0);

  // Into a buffer kept from file to file: a smaller file replaces the contents in the same memory.
  const std::vector<unsigned char> small = bmp_of(make_random_rgba8(7, 3, 13u), 3);
  const std::string small_path = scratch.file("small.bmp");
  std::ofstream(small_path, std::ios::binary).write(reinterpret_cast<const char*>(small.data()), static_cast<std::streamsize>(small.size()));
  UninitializedBytes kept;
  read_image_bytes(path, kept);
  const unsigned char* memory = kept.data();
  read_image_bytes(small_path, kept);
  EXPECT_EQ(kept.data(), memory);
  ASSERT_EQ(kept.size(), small.size());
  EXPECT_EQ(std::memcmp(kept.data(), small.data(), small.size()), 0);
  EXPECT_THROW(read_image_bytes(scratch.path().string(), kept), ImageLoadError);  // a folder, as before
}

}  // namespace
}  // namespace gausslab
