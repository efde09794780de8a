// Rice-compressed FITS (fpack's default): images that cfitsio's own encoder wrote read back
// exactly, for each of Rice's sample widths (BYTEPIX 1, 2, 4), with tiles cut by the image's
// edge; a tile whose codes end early is refused before cfitsio's decoder reads past it.
#include <fitsio.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gausslab/core/image_io.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

// A Rice-compressed image of `bitpix` samples (in an extension, as cfitsio writes one), tiles of
// tile_w × tile_h pixels. `make(x, y)` gives the sample.
template <class Make>
std::vector<unsigned char> rice_file(int bitpix, int width, int height, long tile_w, long tile_h, Make make) {
  // A file on disk, not cfitsio's memory driver: that one grows its buffer with realloc and, when
  // writing a compressed image, reads the table rows it has not written yet from the new bytes.
  const test::ScratchFolder folder;
  const std::string path = folder.file("rice.fits");
  fitsfile* fits = nullptr;
  int status = 0;
  fits_create_file(&fits, path.c_str(), &status);
  fits_set_compression_type(fits, RICE_1, &status);
  long tile[2] = {tile_w, tile_h};
  fits_set_tile_dim(fits, 2, tile, &status);
  long axes[2] = {width, height};
  fits_create_img(fits, bitpix, 2, axes, &status);
  // cfitsio writes a compressed image only from its own sample type.
  std::vector<unsigned char> u8;
  std::vector<unsigned short> u16;
  std::vector<int> i32;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const long long v = make(x, y);
      u8.push_back(static_cast<unsigned char>(v));
      u16.push_back(static_cast<unsigned short>(v));
      i32.push_back(static_cast<int>(v));
    }
  const LONGLONG count = static_cast<LONGLONG>(i32.size());
  if (bitpix == BYTE_IMG) fits_write_img(fits, TBYTE, 1, count, u8.data(), &status);
  else if (bitpix == USHORT_IMG) fits_write_img(fits, TUSHORT, 1, count, u16.data(), &status);
  else fits_write_img(fits, TINT, 1, count, i32.data(), &status);
  fits_close_file(fits, &status);
  char message[FLEN_ERRMSG] = {};
  std::string messages;
  while (fits_read_errmsg(message)) messages += std::string(message) + "; ";
  EXPECT_EQ(status, 0) << "cfitsio could not write the test file: " << messages;
  std::ifstream file(path, std::ios::binary);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return bytes;
}

template <class Make>
void expect_read_exactly(int bitpix, int width, int height, long tile_w, long tile_h, Make make) {
  const std::vector<unsigned char> bytes = rice_file(bitpix, width, height, tile_w, tile_h, make);
  const LoadedImage loaded = load_image_from_memory(bytes.data(), bytes.size(), "rice.fits");
  ASSERT_EQ(loaded.image.width(), width);
  ASSERT_EQ(loaded.image.height(), height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      ASSERT_EQ(loaded.image.sample(x, y, 0), static_cast<float>(make(x, y)))
          << "BITPIX " << bitpix << " at (" << x << ", " << y << ")";
}

TEST(FitsRice, CfitsiosOwnRiceImagesReadBackExactlyForEverySampleWidth) {
  std::mt19937 random(7);
  std::vector<int> noise(97 * 41);
  for (int& v : noise) v = static_cast<int>(random() % 65536);
  // Noise (Rice's raw-sample blocks), gradients (its coded blocks), a flat band (its zero blocks);
  // 97×41 in 32×16 tiles leaves partial tiles on the right and at the bottom.
  auto mixed = [&](int x, int y, int range) -> long long {
    if (y < 8) return 7 % range;
    if (y < 24) return (x * 3 + y) % range;
    return noise[static_cast<std::size_t>(y) * 97 + x] % range;
  };
  expect_read_exactly(BYTE_IMG, 97, 41, 32, 16, [&](int x, int y) { return mixed(x, y, 256); });          // BYTEPIX 1
  expect_read_exactly(USHORT_IMG, 97, 41, 32, 16, [&](int x, int y) { return mixed(x, y, 65536); });      // BYTEPIX 2
  expect_read_exactly(LONG_IMG, 97, 41, 32, 16, [&](int x, int y) { return mixed(x, y, 65536) * 300; });  // BYTEPIX 4
  expect_read_exactly(USHORT_IMG, 5, 3, 97, 1, [&](int x, int y) { return x * 1000 + y; });  // tiles wider than the image
}

TEST(FitsRice, ATileWhoseCodesEndEarlyIsRefusedNamingTheTile) {
  std::mt19937 random(11);
  std::vector<unsigned char> bytes = rice_file(USHORT_IMG, 64, 4, 64, 1, [&](int, int) {
    return static_cast<long long>(random() % 65536);
  });
  // The table's rows hold each tile's (length, offset) as two big-endian 32-bit numbers; halve the
  // length of tile 3 (the table follows the header of the second HDU).
  const std::string text(bytes.begin(), bytes.end());
  const std::size_t end_card = text.find("END     ", text.find("XTENSION"));
  ASSERT_NE(end_card, std::string::npos);
  const std::size_t table = (end_card / 80 + 1) * 80 + 2879 - ((end_card / 80 + 1) * 80 + 2879) % 2880;
  unsigned char* row3 = bytes.data() + table + 2 * 8;
  const std::uint32_t length = (std::uint32_t{row3[0]} << 24) | (row3[1] << 16) | (row3[2] << 8) | row3[3];
  ASSERT_GT(length, 100u) << "tile 3 should hold 64 noisy 16-bit samples";
  const std::uint32_t halved = length / 2;
  for (int i = 0; i < 4; ++i) row3[i] = static_cast<unsigned char>(halved >> (24 - 8 * i));
  try {
    load_image_from_memory(bytes.data(), bytes.size(), "cut.fits");
    FAIL() << "a tile cut to half its codes was read";
  } catch (const ImageLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("tile 3 of the Rice-compressed image's " + std::to_string(halved) +
                                         " bytes end before its 64 pixels"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gausslab
