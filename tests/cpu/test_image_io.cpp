// Image files: the real test images load with the right size and channel count; damaged or
// unsupported files give an ImageLoadError that names the file and the problem; saving round-trips
// and never overwrites.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <cmath>
#include <unistd.h>
#include <random>
#include <set>
#include <string>
#include <tuple>
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
    const LoadedRgba8 loaded = load_image_rgba8(test_data_path(expected.file));
    EXPECT_EQ(loaded.image.width(), expected.width) << expected.file;
    EXPECT_EQ(loaded.image.height(), expected.height) << expected.file;
    EXPECT_EQ(loaded.source_channels, expected.source_channels) << expected.file;
    EXPECT_EQ(load_image(test_data_path(expected.file)).channels(), expected.source_channels) << expected.file;
    // Grey and RGB sources come with an opaque alpha channel.
    bool opaque = true;
    for (const Rgba8& p : loaded.image.pixels()) opaque = opaque && p.a == 255;
    EXPECT_TRUE(opaque) << expected.file;
  }
}

TEST(ImageLoad, GreyImageStaysGreyAndIsExpandedToEqualChannelsForDisplay) {
  EXPECT_EQ(load_image(test_data_path("camera.png")).image.format(), PixelFormat::Grey8);
  const LoadedRgba8 camera = load_image_rgba8(test_data_path("camera.png"));
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
  EXPECT_TRUE(a.image == b.image);
  EXPECT_EQ(a.note, b.note);
}

// ---- bad files ------------------------------------------------------------------------------

TEST(ImageLoad, TruncatedJpegIsAClearError) {
  const std::string path = test_data_path("truncated.jpg");
  const std::string message = load_error(path);
  EXPECT_TRUE(contains(message, "truncated.jpg")) << message;
  EXPECT_TRUE(contains(without(message, path), "truncated")) << message;
}

TEST(ImageLoad, CutJpegIsAClearError) {
  // libjpeg repairs cut JPEGs with a warning (grey where data is missing); the loader must refuse them.
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

TEST(ImageLoad, SixteenBitTiffKeepsItsSixteenBitsAndSaysSoWhenReducedToEight) {
  const LoadedImage loaded = load_image(test_data_path("chessboard_GRAY_U16.tif"));
  EXPECT_EQ(loaded.image.width(), 200);
  EXPECT_EQ(loaded.image.height(), 200);
  EXPECT_EQ(loaded.image.format(), PixelFormat::Grey16);
  EXPECT_EQ(loaded.source_type, "uint16");
  EXPECT_EQ(loaded.format, "TIFF");
  EXPECT_TRUE(loaded.note.empty()) << loaded.note;  // nothing converted
  std::set<int> values;
  for (int y = 0; y < loaded.image.height(); ++y)
    for (int x = 0; x < loaded.image.width(); ++x) values.insert(loaded.image.row<std::uint16_t>(y)[x]);
  EXPECT_GE(values.size(), 2u) << "a chessboard has light and dark squares";
  const LoadedRgba8 reduced = reduce_to_rgba8(loaded);
  EXPECT_EQ(reduced.source_channels, 1);
  EXPECT_TRUE(contains(reduced.note, "16-bit samples reduced to 8 bits")) << reduced.note;  // said so
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
  // Random corruption of a small PNG and a JPEG header: each either loads (some damage leaves a
  // valid file) or throws ImageLoadError; anything else — another exception, a crash — fails.
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

// ---- every format, every malformed file (tests/data/make_format_samples.py made them) --------

std::vector<std::string> files_in(const std::string& folder) {
  const fs::path dir = fs::path(test_data_path(folder + "/README.md")).parent_path();
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != "README.md") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(ImageLoad, EveryFormatSampleLoadsFully) {
  // The pixels are compared with PIL's in check_image_codecs.py; here every decoder runs (also
  // under the sanitizers) and must fill the whole picture: no pixel is left transparent black
  // in these opaque-or-alpha samples' colour channels by accident is not checkable, so the size is.
  const std::vector<std::string> paths = files_in("formats");
  ASSERT_GE(paths.size(), 50u);
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const LoadedImage loaded = load_image(path);
    EXPECT_EQ(loaded.image.width(), 23);
    EXPECT_EQ(loaded.image.height(), 17);
    EXPECT_GE(loaded.channels(), 1);
    EXPECT_LE(loaded.channels(), 4);
    EXPECT_FALSE(loaded.format.empty());
  }
}

TEST(ImageLoad, EveryMalformedFileIsRefusedNamingTheFile) {
  const std::vector<std::string> paths = files_in("malformed");
  ASSERT_GE(paths.size(), 30u);
  for (const std::string& path : paths) {
    const std::string message = load_error(path);
    EXPECT_TRUE(contains(message, path)) << message;
  }
}

std::string malformed_error(const std::string& name) {
  const std::string path = test_data_path("malformed/" + name);
  return without(load_error(path), path);
}

TEST(ImageLoad, AHugeHeaderIsRefusedWithItsSizeAndTheLimitNotAsAnUnknownFormat) {
  const std::string png = malformed_error("png_huge_header.png");
  EXPECT_TRUE(contains(png, "100000×100000")) << png;
  EXPECT_TRUE(contains(png, "limit")) << png;
  EXPECT_FALSE(contains(png, "not an image in a supported format")) << png;
  for (const char* name : {"jpeg_huge_header.jpg", "tiff_huge_header.tif", "pnm_huge_header.ppm"})
    EXPECT_TRUE(contains(malformed_error(name), "limit")) << name << ": " << malformed_error(name);
}

TEST(ImageLoad, FitsFoundByTheFuzzerAreRefusedBeforeCfitsioWalksThem) {
  const std::string ztile = malformed_error("fits_compressed_ztile_of_0.fits");
  EXPECT_TRUE(contains(ztile, "ZTILE2 is 0")) << ztile;
  const std::string table = malformed_error("fits_compressed_table_beyond_the_file.fits");
  EXPECT_TRUE(contains(table, "truncated") || contains(table, "damaged")) << table;
  // The 30-minute run's find: a second ZTILE1 card whose value is a string.
  const std::string twice = malformed_error("fits_compressed_ztile_as_a_string.fits");
  EXPECT_TRUE(contains(twice, "ZTILE1 is not a")) << twice;
  const std::string blocksize = malformed_error("fits_compressed_blocksize_of_a_third.fits");
  EXPECT_TRUE(contains(blocksize, "ZVAL1 (its BLOCKSIZE) is not a whole number")) << blocksize;
  // The fourth run's: ZVAL1 = "0   32" under ZNAME1 = 'BLOCIZSEK' (cfitsio reads ZVAL1 by position).
  const std::string unnamed = malformed_error("fits_rice_zval1_under_another_name.fits");
  EXPECT_TRUE(contains(unnamed, "the header's ZVAL1 has a value that is neither")) << unnamed;
  // And its next: ZNAXIS = 57 bytes of 255, a value that overflowed cfitsio's message buffer
  // when it could not read it as an integer (ffc2j).
  const std::string bytes = malformed_error("fits_znaxis_of_byte_255s.fits");
  EXPECT_TRUE(contains(bytes, "the header's ZNAXIS has a value that is neither")) << bytes;
  // And after 1.9 million more: "ZVAL1   =0      32", which cfitsio reads as 0 (the value from column 10).
  const std::string unspaced = malformed_error("fits_zval1_without_a_space_after_equals.fits");
  EXPECT_TRUE(contains(unspaced, "the header's ZVAL1 has a value that is neither")) << unspaced;
  // And then: TFIELDS = 10^50 (cfitsio's table of columns: calloc(2^63 - 1, 160)).
  const std::string fields = malformed_error("fits_tfields_of_10_to_the_50.fits");
  EXPECT_TRUE(contains(fields, "the header's TFIELDS is 1e+50, beyond any count")) << fields;
  // And then: "TTYPE1  = [[[[...[['", which cfitsio copied into a fixed buffer (ffgtbp).
  const std::string unquoted = malformed_error("fits_ttype1_unquoted_value.fits");
  EXPECT_TRUE(contains(unquoted, "the header's TTYPE1 has a value that is neither a string, a number nor T or F"))
      << unquoted;
  // And then: a card "ZVAL1  E1  = 'B   32", which cfitsio takes for ZVAL1 with an unclosed string (ffc2j).
  const std::string spaced = malformed_error("fits_keyword_with_a_space_inside.fits");
  EXPECT_TRUE(contains(spaced, "keyword \"ZVAL1  E\" holds a character a FITS keyword cannot")) << spaced;
  // And then: TTYPE0 for TTYPE1 (no COMPRESSED_DATA column: cfitsio read a tile size from header text).
  const std::string column = malformed_error("fits_no_compressed_data_column.fits");
  EXPECT_TRUE(contains(column, "no COMPRESSED_DATA column")) << column;
  // And then: NAXIS = 2 and NAXIS = 0 beside GCOUNT = -32 (cfitsio walked the file for minutes).
  const std::string twice_naxis = malformed_error("fits_naxis_twice_and_negative_gcount.fits");
  EXPECT_TRUE(contains(twice_naxis, "GCOUNT is -32 (at least 0)") || contains(twice_naxis, "gives NAXIS twice"))
      << twice_naxis;
  // The third run's find: tile 7's codes end in zero bits, where cfitsio's Rice decoder read on
  // past the tile's 25 bytes.
  const std::string rice = malformed_error("fits_rice_tile_codes_end_early.fits");
  EXPECT_TRUE(contains(rice, "tile 7 of the Rice-compressed image's 25 bytes end before its 11 pixels")) << rice;
}

TEST(ImageLoad, AFitsCardWhoseKeywordIsNotAsciiOrWhoseIntegerIsNoNumberIsRefused) {
  auto fits = [](const std::string& extra_card) {
    std::string header;
    for (std::string card : {std::string("SIMPLE  =                    T"), std::string("BITPIX  =                    8"),
                             std::string("NAXIS   =                    2"), std::string("NAXIS1  =                    3"),
                             std::string("NAXIS2  =                    2"), extra_card, std::string("END")})
      header += card + std::string(80 - card.size(), ' ');
    header += std::string(2880 - header.size(), ' ');
    return header + std::string(2880, '\0');
  };
  auto error = [](const std::string& bytes) {
    try {
      load_image_from_memory(bytes.data(), bytes.size(), "card.fits");
    } catch (const ImageLoadError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  EXPECT_EQ(error(fits("COMMENT a comment in Latin-1: caf\xe9")), "read");  // comments may hold any byte
  EXPECT_EQ(error(fits("EXTVER  =                  2.0")), "read");          // a number written as a float
  EXPECT_EQ(error(fits("OBJECT  = 'O''Neil''s field' / a quote doubled")), "read");
  EXPECT_EQ(error(fits("EXPTIME =             1.5D+02 / a D exponent")), "read");
  EXPECT_EQ(error(fits("SIMPLE2 =                    F")), "read");
  EXPECT_EQ(error(fits("BLANKV  =")), "read");  // no value
  EXPECT_TRUE(contains(error(fits("OBJECT  = 'M31")), "OBJECT has a value that is neither"));  // no closing quote
  EXPECT_TRUE(contains(error(fits("EXTVER  =                2 3")), "the header's EXTVER has a value that is neither"));  // two numbers
  EXPECT_TRUE(contains(error(fits("OBJ\xc9" "CT  = 'M31'")), "keyword holds a byte that is not ASCII text (201)"));
  EXPECT_TRUE(contains(error(fits("EXTVER  = 'two'")), "the header's EXTVER is not a number"));
  EXPECT_TRUE(contains(error(fits("TFIELDS =                 1000")), "the header's TFIELDS is 1000 (FITS allows 0 to 999)"));
  EXPECT_TRUE(contains(error(fits("NAXIS2  =                    2")), "the header gives NAXIS2 twice"));
  EXPECT_EQ(error(fits("OBSERVER= 'A'")), "read");  // other keywords are not checked for repeats
}

TEST(ImageLoad, AHeaderThatContradictsTheFileSizeIsRefused) {
  const std::string tga = malformed_error("tga_70_bytes_29801x11877.tga");
  EXPECT_TRUE(contains(tga, "29801×11877")) << tga;
  EXPECT_TRUE(contains(tga, "only 52")) << tga;  // the bytes after the header
  for (const char* name : {"bmp_huge_header.bmp", "png_header_bigger_than_data.png", "bmp_truncated.bmp",
                           "tga_truncated.tga", "pnm_truncated.ppm", "tiff_truncated.tif"}) {
    const std::string message = malformed_error(name);
    EXPECT_TRUE(contains(message, "truncated")) << name << ": " << message;
  }
}

TEST(ImageLoad, APaletteIndexBeyondThePaletteIsAnError) {
  for (const char* name : {"png_palette_index_out_of_range.png", "bmp_palette_index_out_of_range.bmp",
                           "gif_index_out_of_range.gif", "tga_colormap_index_out_of_range.tga"}) {
    const std::string message = malformed_error(name);
    EXPECT_TRUE(contains(message, "entries")) << name << ": " << message;
  }
}

TEST(ImageLoad, DataThatEndsEarlyIsAnErrorNotAPartlyFilledPicture) {
  for (const char* name : {"png_idat_too_short.png", "png_truncated.png", "jpeg_truncated.jpg",
                           "jpeg_progressive_truncated.jpg", "gif_truncated.gif", "tga_rle_truncated.tga",
                           "pnm_16bit_truncated.pgm"})
    EXPECT_FALSE(malformed_error(name).empty()) << name;
}

TEST(ImageLoad, UnsafeFormatsAreRefusedWithTheReasonAndWhatToDo) {
  for (const char* name : {"hdr_truncated_rle.hdr", "psd_truncated.psd", "pic_refused.pic"}) {
    const std::string message = malformed_error(name);
    EXPECT_TRUE(contains(message, "does not read")) << name << ": " << message;
    EXPECT_TRUE(contains(message, "convert it")) << name << ": " << message;
  }
}

TEST(ImageLoad, TheLimitsAdmitA32768SquareRgbaImage) {
  // A BMP header declaring 32768×32768 RGBA8 (4 GiB decoded) passes the limits and is refused
  // only because this small file cannot hold its pixels (checked before any allocation).
  std::vector<unsigned char> bmp(14 + 40 + 16, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int b = 0; b < 4; ++b) bmp[at + static_cast<std::size_t>(b)] = static_cast<unsigned char>(v >> (8 * b));
  };
  bmp[0] = 'B';
  bmp[1] = 'M';
  put32(10, 54);
  put32(14, 40);
  put32(18, 32768);
  put32(22, 32768);
  bmp[26] = 1;
  bmp[28] = 32;
  try {
    load_image_from_memory(bmp.data(), bmp.size(), "big.bmp");
    FAIL() << "a 70-byte file decoded into 4 GiB";
  } catch (const ImageLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "32768×32768")) << e.what();
    EXPECT_TRUE(contains(e.what(), "truncated")) << e.what();
    EXPECT_FALSE(contains(e.what(), "limit")) << e.what();
  }
}

TEST(ImageLoad, SmallerLimitsAreCheckedBeforeAllocation) {
  ImageLimits limits;
  limits.max_pixels = 100;
  const std::string path = test_data_path("formats/png_rgb8.png");  // 23×17 = 391 pixels
  try {
    load_image(path, limits);
    FAIL() << "loaded beyond max_pixels";
  } catch (const ImageLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "23×17")) << e.what();
    EXPECT_TRUE(contains(e.what(), "limit of 100 pixels")) << e.what();
  }
  limits = ImageLimits();
  limits.max_width = 20;
  EXPECT_THROW(load_image(path, limits), ImageLoadError);
  limits = ImageLimits();
  limits.max_decoded_bytes = 1000;  // 391 × 4 bytes do not fit
  EXPECT_THROW(load_image(path, limits), ImageLoadError);
  limits = ImageLimits();
  limits.max_file_bytes = 10;
  EXPECT_THROW(load_image(path, limits), ImageLoadError);
}

TEST(ImageLoad, OnlyRegularFilesAreReadNeverBlocking) {
  ScratchFolder folder;
  const std::string fifo = folder.file("pipe.png");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string fifo_message = load_error(fifo);  // no writer: a blocking open would never return
  EXPECT_TRUE(contains(fifo_message, "FIFO")) << fifo_message;
  for (const char* device : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    const std::string message = load_error(device);
    EXPECT_TRUE(contains(message, device)) << message;
    EXPECT_TRUE(contains(message, "not a regular file")) << message;
  }
}

#if !defined(__SANITIZE_ADDRESS__)  // the address sanitizer needs far more address space than this limit
// In a child process: the address space capped at 512 MiB, `path` loaded; exits 0 when the
// failure was an ImageLoadError naming the file and saying `why`; 4 when the load succeeded and
// `loads` (its size) says it should.
[[noreturn]] void load_with_capped_memory(const std::string& path, const std::string& name,
                                          const std::string& why = "memory", bool loads = false) {
  struct rlimit cap {};
  cap.rlim_cur = cap.rlim_max = 512u << 20;
  setrlimit(RLIMIT_AS, &cap);
  try {
    const LoadedImage loaded = load_image(path);
    std::fprintf(stderr, "loaded %dx%d\n", loaded.image.width(), loaded.image.height());
    std::exit(loads ? 4 : 3);
  } catch (const ImageLoadError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(contains(e.what(), name) && contains(e.what(), why) ? 0 : 1);
  } catch (...) {
    std::exit(2);
  }
}

TEST(ImageLoadDeathTest, TinyFilesDeclaringHugeImagesAreRefusedBeforeAllocating) {
  // Issue #40: a 35-byte GIF declaring a 32768×32767 screen peaked at 4.2 GB, a G4 TIFF of 130
  // bytes declaring 32768×32767 at 4.3 GB; here each is refused within 512 MiB, for what its data
  // cannot hold (not for want of memory).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const char* name : {"gif_35_bytes_32768x32767.gif", "tiff_g4_130_bytes_32768x32767.tif"}) {
    const std::string path = test_data_path(std::string("malformed/") + name);
    EXPECT_EXIT(load_with_capped_memory(path, name, "32768×32767"), testing::ExitedWithCode(0), "") << name;
  }
}

TEST(ImageLoadDeathTest, ANonImageIsRefusedFromItsFirstBytesAndARawFormatReadsOnlyItsRaster) {
  // Issue #40: a 3 GiB sparse all-zero file was read whole (3.1 GB) before "not an image". Within
  // 512 MiB it is refused from its first bytes; and a 2×1 PGM followed by 3 GiB of zeros loads,
  // its raster alone read.
  ScratchFolder folder;
  const std::string zeros = folder.file("zeros.png"), pgm = folder.file("tail.pgm");
  {
    std::ofstream(zeros).close();
    std::ofstream out(pgm, std::ios::binary);
    out << "P5\n2 1\n255\n\x07\x09";
  }
  ASSERT_EQ(::truncate(zeros.c_str(), 3LL << 30), 0);
  ASSERT_EQ(::truncate(pgm.c_str(), 3LL << 30), 0);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(load_with_capped_memory(zeros, "zeros.png", "not an image"), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(load_with_capped_memory(pgm, "tail.pgm", "", true), testing::ExitedWithCode(4), "loaded 2x1");
}

TEST(ImageLoadDeathTest, OutOfMemoryWhileDecodingIsAnErrorNamingTheFile) {
  // A valid 16384×16384 RLE TGA of one colour (2 MiB): 1 GiB to decode, more than the child may
  // have. The batch must get an ImageLoadError naming the file, not std::bad_alloc.
  ScratchFolder folder;
  const std::string path = folder.file("one-colour.tga");
  std::vector<unsigned char> tga(18, 0);
  tga[2] = 10;    // RLE true colour
  tga[13] = 0x40;  // width 16384
  tga[15] = 0x40;  // height 16384
  tga[16] = 24;
  for (int packet = 0; packet < 16384 * 16384 / 128; ++packet) tga.insert(tga.end(), {0xFF, 10, 20, 30});
  write_bytes(path, tga);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(load_with_capped_memory(path, "one-colour.tga"), testing::ExitedWithCode(0), "not enough memory");
}
#endif

TEST(ImageLoad, DamagedTiffPixelDataIsRefusedWhereLibtiffWouldFillRowsIn) {
  // Issue #40: libtiff's fax and JPEG decoders warn ("Premature EOF") and go on with blank or grey
  // rows; a warning while pixels are decoded is an error here.
  const std::string g4 = malformed_error("tiff_g4_strip_cut_to_a_third.tif");
  EXPECT_TRUE(contains(g4, "Premature EOF")) << g4;
  const std::string jpeg = malformed_error("tiff_jpeg_strips_cut.tif");
  EXPECT_TRUE(contains(jpeg, "Premature end of JPEG file")) << jpeg;
  for (const std::string& message : {g4, jpeg}) EXPECT_TRUE(contains(message, "damaged or truncated")) << message;
}

// A directory libtiff cannot read (cut short, or beyond the file's end): said in our words, with
// where the header puts it and libtiff's detail, not libtiff's raw "TIFFFetchDirectory: NAME: ...".
TEST(ImageLoad, ATiffDirectoryThatCannotBeReadIsSaidToBeCutShort) {
  for (const auto& [name, where, detail] :
       {std::tuple<const char*, const char*, const char*>{"tiff_directory_cut_short.tif", "at byte 8 of the file's 46",
                                                          "(libtiff: Can not read TIFF directory)"},
        {"tiff_directory_beyond_the_file.tif", "the header puts it at byte 5000, beyond the file's 904 bytes",
         "(libtiff: Can not read TIFF directory count)"}}) {
    const std::string path = test_data_path(std::string("malformed/") + name);
    const std::string message = load_error(path);
    EXPECT_TRUE(contains(message, "'" + path + "' is not a valid TIFF file: its image directory")) << message;
    EXPECT_TRUE(contains(message, where)) << message;
    EXPECT_TRUE(contains(message, "cannot be read whole: the file is truncated or damaged")) << message;
    EXPECT_TRUE(contains(message, detail)) << message;
    EXPECT_FALSE(contains(message, "TIFFFetchDirectory")) << message;
    EXPECT_EQ(without(message, path).find(name), std::string::npos) << "the name once: " << message;
  }
}

TEST(ImageLoad, AFitsFileWithoutItsLastRecordsPaddingLoads) {
  // Found by fuzz_fits: cfitsio reads whole 2880-byte records, and read past our buffer when the
  // last one was short (ASan: heap-buffer-overflow in mem_read). The data itself is whole, so the
  // image loads (cfitsio gets a padded copy), with its samples.
  std::string header;
  for (const char* card : {"SIMPLE  =                    T", "BITPIX  =                   16", "NAXIS   =                    2",
                           "NAXIS1  =                    3", "NAXIS2  =                    2", "END"})
    header += std::string(card) + std::string(80 - std::strlen(card), ' ');
  header.resize(2880, ' ');
  std::vector<unsigned char> bytes(header.begin(), header.end());
  for (int v : {-2, -1, 0, 1, 2, 30000}) bytes.insert(bytes.end(), {static_cast<unsigned char>((v >> 8) & 0xff),
                                                                   static_cast<unsigned char>(v & 0xff)});
  const LoadedImage loaded = load_image_from_memory(bytes.data(), bytes.size(), "unpadded.fits");
  ASSERT_EQ(loaded.image.format(), PixelFormat::F32);
  EXPECT_EQ(loaded.source_type, "int16");
  EXPECT_EQ(loaded.image.row<float>(0)[0], -2.0f);
  EXPECT_EQ(loaded.image.row<float>(1)[2], 30000.0f);
  bytes.resize(bytes.size() - 1);  // now the data itself ends early
  EXPECT_THROW(load_image_from_memory(bytes.data(), bytes.size(), "cut.fits"), ImageLoadError);
  // Found next: cfitsio takes a file to be as long as its header says and read past a buffer
  // holding the header alone; each HDU's data must now be in the buffer before cfitsio reads it.
  const std::vector<unsigned char> header_only(header.begin(), header.end());
  try {
    load_image_from_memory(header_only.data(), header_only.size(), "header-only.fits");
    FAIL() << "loaded";
  } catch (const ImageLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "truncated")) << e.what();
  }
}

TEST(ImageLoad, AnExrAttributeWhoseContentsDisagreeWithItsSizeIsRefusedBeforeOpenExrReadsIt) {
  // Found by fuzz_exr: OpenEXR reads a channel list by its entries, not its size, then took the
  // bytes after a short one for an attribute of 1.8 GB and allocated it (a 1833-byte file).
  const std::vector<unsigned char> original = read_bytes(test_data_path("formats/exr_float_grey.exr"));
  const std::string text(original.begin(), original.end());
  const std::size_t at = text.find("chlist");
  ASSERT_NE(at, std::string::npos);
  std::vector<unsigned char> bytes = original;
  bytes[at + 7] = static_cast<unsigned char>(bytes[at + 7] + 4);  // the size claims 4 bytes more than the entries
  try {
    load_image_from_memory(bytes.data(), bytes.size(), "chlist.exr");
    FAIL() << "loaded";
  } catch (const ImageLoadError& e) {
    EXPECT_TRUE(contains(e.what(), "attribute 'channels' (chlist) is damaged")) << e.what();
  }
  // And a fixed-size attribute whose size field says otherwise (a v2f of size 0, found next).
  const std::size_t v2f = text.find("v2f");
  ASSERT_NE(v2f, std::string::npos);
  bytes = original;
  bytes[v2f + 4] = 9;  // 8 bytes in a v2f
  EXPECT_THROW(load_image_from_memory(bytes.data(), bytes.size(), "v2f.exr"), ImageLoadError);
}

TEST(ImageLoad, TheWideAndFloatSamplesKeepTheirType) {
  struct Expected {
    const char* file;
    PixelFormat format;
    const char* source_type;
  };
  const Expected samples[] = {
      {"png_rgba16.png", PixelFormat::Rgba16, "uint16"},          {"png_grey1.png", PixelFormat::Grey8, "1-bit"},
      {"png_palette_trns.png", PixelFormat::Rgba8, "palette"},    {"tiff_rgb16f.tif", PixelFormat::Rgb16F, "float16"},
      {"tiff_float32.tif", PixelFormat::F32, "float32"},          {"pnm_p6_16bit.ppm", PixelFormat::Rgb16, "uint16"},
      {"pnm_p5_maxval1023.pgm", PixelFormat::Grey16, "uint16"},   {"pfm_rgb.pfm", PixelFormat::Rgb32F, "float32"},
      {"exr_half_rgba.exr", PixelFormat::Rgba16F, "float16"},     {"exr_float_grey.exr", PixelFormat::F32, "float32"},
      {"fits_uint16.fits", PixelFormat::Grey16, "uint16"},        {"fits_float64_rgb_cube.fits", PixelFormat::Rgb32F, "float64"},
      {"npy_float16_grey_alpha.npy", PixelFormat::GreyAlpha16F, "float16"},
  };
  for (const Expected& e : samples) {
    const LoadedImage loaded = load_image(test_data_path(std::string("formats/") + e.file));
    EXPECT_EQ(loaded.image.format(), e.format) << e.file << ": " << to_string(loaded.image.format());
    EXPECT_EQ(loaded.source_type, e.source_type) << e.file;
  }
  const LoadedImage ten_bits = load_image(test_data_path("formats/pnm_p5_maxval1023.pgm"));
  EXPECT_EQ(ten_bits.maxval, 1023u);
  EXPECT_TRUE(contains(ten_bits.note, "maxval 1023")) << ten_bits.note;
  EXPECT_TRUE(contains(load_image(test_data_path("formats/fits_float64_rgb_cube.fits")).note, "float64"));
}

// ---- saving ---------------------------------------------------------------------------------

// A deterministic image of `format` with every bit pattern class its type has (NaN, infinities,
// -0 and subnormals for the floats).
HostImage typed_image(int width, int height, PixelFormat format, std::uint32_t seed) {
  HostImage image(width, height, format);
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < image.size_bytes(); ++i) image.data()[i] = static_cast<unsigned char>(rng());
  if (sample_type(format) == SampleType::F16)  // no NaN payloads beyond the one OpenEXR and friends keep
    for (std::size_t i = 0; i < image.size_bytes() / 2; ++i) {
      std::uint16_t& h = reinterpret_cast<std::uint16_t*>(image.data())[i];
      if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) h = 0x7e00u;
    }
  if (sample_type(format) == SampleType::F32)
    for (std::size_t i = 0; i < image.size_bytes() / 4; ++i) {
      float& f = reinterpret_cast<float*>(image.data())[i];
      if (std::isnan(f)) f = std::numeric_limits<float>::quiet_NaN();
    }
  return image;
}

TEST(ImageSave, EveryFormatRoundTripsEveryTypeItHoldsBitForBit) {
  // In memory, so that the sanitizer build runs every encoder and decoder on every type; the files
  // are checked against other readers in check_image_types.py.
  const ImageFormat formats[] = {ImageFormat::Png, ImageFormat::Tiff, ImageFormat::Pnm, ImageFormat::Pfm,
                                 ImageFormat::Exr, ImageFormat::Fits, ImageFormat::Npy, ImageFormat::Tga};
  int round_trips = 0;
  for (const ImageFormat file_format : formats)
    for (int f = 0; f < kPixelFormatCount; ++f) {
      const auto format = static_cast<PixelFormat>(f);
      if (!format_writes(file_format, sample_type(format))) continue;
      const int channels = channel_count(format);
      if (!format_keeps_alpha(file_format) && has_alpha(format)) continue;
      SCOPED_TRACE(std::string(to_string(file_format)) + " " + to_string(format));
      const HostImage image = typed_image(13, 7, format, static_cast<std::uint32_t>(f));
      const std::vector<unsigned char> bytes = encode_image(image.view(), file_format);
      const LoadedImage back =
          load_image_from_memory(bytes.data(), bytes.size(), std::string("round-trip") + file_extension(file_format));
      ASSERT_EQ(back.image.format(), format) << to_string(back.image.format());
      EXPECT_TRUE(back.image == image) << "the samples differ";
      EXPECT_EQ(back.image.channels(), channels);
      ++round_trips;
    }
  EXPECT_EQ(round_trips, 8 + 16 + 4 + 2 + 8 + 12 + 16 + 4);  // PNG, TIFF, PNM and PFM (no alpha), EXR, FITS, NPY, TGA
}

TEST(ImageSave, PngSidesBeyondLibpngsDefaultLimitAreWritten) {
  // Issue #40: sides of 1,000,001 to 1,048,576 were read, filtered, then refused by libpng's default
  // write limit of 1,000,000; PNG allows 2^31 - 1.
  HostImage wide(1000001, 1, PixelFormat::Grey16);
  wide.row<std::uint16_t>(0)[1000000] = 54321;
  const std::vector<unsigned char> bytes = encode_image(wide.view(), ImageFormat::Png);
  const LoadedImage back = load_image_from_memory(bytes.data(), bytes.size(), "wide.png");
  EXPECT_TRUE(back.image == wide);
}

TEST(ImageSave, ATypeAFormatCannotHoldIsRefusedNamingTheFormatsThatCan) {
  ScratchFolder folder;
  const HostImage f32 = typed_image(4, 4, PixelFormat::Rgba32F, 1);
  try {
    save_image(folder.file("float.png"), f32.view());
    FAIL() << "float32 written into a PNG";
  } catch (const ImageSaveError& e) {
    EXPECT_TRUE(contains(e.what(), "float.png")) << e.what();
    EXPECT_TRUE(contains(e.what(), "PNG holds 8-bit and 16-bit samples, not float32")) << e.what();
    EXPECT_TRUE(contains(e.what(), "tiff, pfm, exr, fits or npy")) << e.what();
  }
  EXPECT_TRUE(folder_entries(folder.path()).empty()) << "a refused save left a file";
  const std::string half_in_fits = check_output_path(folder.file("half.fits"), SaveOptions{}, PixelFormat::Rgb16F);
  EXPECT_TRUE(contains(half_in_fits, "tiff, exr or npy")) << half_in_fits;
  EXPECT_EQ(check_output_path(folder.file("half.exr"), SaveOptions{}, PixelFormat::Rgb16F), "");
  EXPECT_EQ(formats_writing(SampleType::U16), "png, pnm, tiff, fits or npy");
  SaveOptions wide;
  wide.float64 = true;
  EXPECT_EQ(check_output_type(ImageFormat::Npy, PixelFormat::F32, wide), "");
  EXPECT_TRUE(contains(check_output_type(ImageFormat::Tiff, PixelFormat::F32, wide), "fits or npy"));
}



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
    const LoadedRgba8 loaded = load_image_rgba8(path);
    EXPECT_EQ(loaded.source_channels, channels);
    ASSERT_EQ(loaded.image.width(), 17);
    ASSERT_EQ(loaded.image.height(), 11);
    for (std::size_t i = 0; i < image.pixel_count(); ++i)
      ASSERT_TRUE(loaded.image.data()[i] == expected_after_round_trip(image.data()[i], channels, true))
          << channels << " channels, pixel " << i;
  }
}

TEST(ImageSave, BmpRoundTripsOneToFourChannels) {
  // BMP as we write it: grey as 8-bit indices into a grey ramp (read back as grey, with no note),
  // 24-bit for 3 channels, 32-bit with alpha for 4, and for grey + alpha too (saved as RGBA so that
  // the alpha is not lost).
  ScratchFolder folder;
  const ImageRgba8 image = make_random_rgba8(13, 7, 4);  // odd width: rows need padding in BMP
  for (int channels = 1; channels <= 4; ++channels) {
    const std::string path = folder.file("round-trip-" + std::to_string(channels) + ".BMP");
    save_image(path, image, channels);
    const LoadedRgba8 loaded = load_image_rgba8(path);
    EXPECT_EQ(loaded.source_channels, channels == 4 || channels == 2 ? 4 : channels) << channels << " channels";
    if (channels == 1) {
      EXPECT_EQ(load_image(path).note, "") << "the grey ramp is the levels themselves";
    }
    ASSERT_EQ(loaded.image.width(), 13);
    ASSERT_EQ(loaded.image.height(), 7);
    for (std::size_t i = 0; i < image.pixel_count(); ++i)
      ASSERT_TRUE(loaded.image.data()[i] == expected_after_round_trip(image.data()[i], channels, true))
          << channels << " channels, pixel " << i;
  }
}

TEST(ImageSave, Bmp24BitRowsAreBgrBottomUpAndPaddedAtEveryWidth) {
  // The 24-bit rows go 4 (x86-64) or 16 (Arm) pixels at a time, the rest byte by byte: widths
  // with every tail, against the layout written out byte by byte, read back exactly, and streamed
  // (encode_image_to) the same.
  for (int width : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 18, 37}) {
    SCOPED_TRACE(width);
    const ImageRgba8 image = make_random_rgba8(width, 3, 50u + static_cast<unsigned>(width));
    const std::vector<unsigned char> bytes = encode_image(image, 3, ImageFormat::Bmp);
    const std::size_t stride = (static_cast<std::size_t>(width) * 3 + 3) / 4 * 4;
    ASSERT_EQ(bytes.size(), 54 + stride * 3);
    std::vector<unsigned char> pixels;
    for (int y = 2; y >= 0; --y) {
      for (int x = 0; x < width; ++x)
        for (std::uint8_t v : {image.at(x, y).b, image.at(x, y).g, image.at(x, y).r}) pixels.push_back(v);
      pixels.resize(pixels.size() + stride - static_cast<std::size_t>(width) * 3, 0);
    }
    EXPECT_TRUE(std::equal(pixels.begin(), pixels.end(), bytes.begin() + 54));
    const LoadedRgba8 back = load_image_rgba8_from_memory(bytes.data(), bytes.size(), "rows.bmp");
    ASSERT_EQ(back.image.width(), width);
    EXPECT_EQ(back.source_channels, 3);
    EXPECT_EQ(load_image_from_memory(bytes.data(), bytes.size(), "rows.bmp").image.format(), PixelFormat::Rgb8);
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < width; ++x) {
        const Rgba8 p = image.at(x, y);
        ASSERT_TRUE(back.image.at(x, y) == (Rgba8{p.r, p.g, p.b, 255})) << x << ", " << y;
      }
    std::vector<unsigned char> streamed;
    int pieces = 0;
    encode_image_to(image, 3, ImageFormat::Bmp, 90, [&](const void* data, std::size_t size) {
      streamed.insert(streamed.end(), static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + size);
      ++pieces;
    });
    EXPECT_EQ(streamed, bytes);
    EXPECT_EQ(pieces, 2);  // the header, then the rows (in pieces of 1 MiB or more where the file is that large)
  }
}

TEST(ImageSave, StreamedEncodingGivesTheSameBytesInEveryFormat) {
  const ImageRgba8 image = make_random_rgba8(13, 7, 8);
  for (int f = 0; f < static_cast<int>(ImageFormat::Count); ++f) {
    const ImageFormat format = static_cast<ImageFormat>(f);
    if (!format_writes(format, SampleType::U8)) continue;  // PFM, OpenEXR: below
    for (int channels : {1, 2, 3, 4}) {
      std::vector<unsigned char> streamed;
      encode_image_to(image, channels, format, 85, [&](const void* data, std::size_t size) {
        streamed.insert(streamed.end(), static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + size);
      });
      EXPECT_EQ(streamed, encode_image(image, channels, format, 85)) << to_string(format) << ", " << channels << " channels";
    }
  }
  EXPECT_THROW(encode_image_to(image, 5, ImageFormat::Png, 90, [](const void*, std::size_t) {}), ImageSaveError);
  EXPECT_THROW(encode_image_to(image, 3, ImageFormat::Exr, 90, [](const void*, std::size_t) {}), ImageSaveError);
}

TEST(ImageSave, StreamedEncodingGivesTheSameBytesForEveryTypeAFormatHolds) {
  int cases = 0;
  for (int ff = 0; ff < static_cast<int>(ImageFormat::Count); ++ff)
    for (int f = 0; f < kPixelFormatCount; ++f) {
      const auto file_format = static_cast<ImageFormat>(ff);
      const auto format = static_cast<PixelFormat>(f);
      if (!format_writes(file_format, sample_type(format))) continue;
      SCOPED_TRACE(std::string(to_string(file_format)) + " " + to_string(format));
      const HostImage image = typed_image(13, 7, format, static_cast<std::uint32_t>(f));
      std::vector<unsigned char> streamed;
      int pieces = 0;
      encode_image_to(image.view(), file_format, SaveOptions{}, [&](const void* data, std::size_t size) {
        streamed.insert(streamed.end(), static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + size);
        ++pieces;
      });
      EXPECT_EQ(streamed, encode_image(image.view(), file_format));
      const bool whole = file_format == ImageFormat::Tiff || file_format == ImageFormat::Exr ||
                         file_format == ImageFormat::Fits || file_format == ImageFormat::Jpeg;
      if (file_format == ImageFormat::Bmp) {
        EXPECT_EQ(pieces, 2) << "the header, then rows in pieces of 1 MiB or more, or all of them in a smaller file";
      } else if (!whole) {
        EXPECT_GT(pieces, 7) << "a piece a row at least";
      }
      ++cases;
    }
  EXPECT_EQ(cases, 84);  // the writers' table × 1-4 channels: PNG 8, JPEG, BMP, TGA 4 each, PNM 8, TIFF 16, PFM 4, EXR 8, FITS 12, NPY 16
  const HostImage f32 = typed_image(4, 4, PixelFormat::F32, 1);
  const std::string refusal = [&] {
    try {
      encode_image_to(f32.view(), ImageFormat::Png, SaveOptions{}, [](const void*, std::size_t) {});
    } catch (const ImageSaveError& error) {
      return std::string(error.what());
    }
    return std::string();
  }();
  EXPECT_TRUE(contains(refusal, "tiff, pfm, exr, fits or npy")) << refusal;
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
  EXPECT_EQ(load_image_rgba8(path).image.pixels(), second.pixels());
  EXPECT_EQ(folder_entries(folder.path()), std::vector<std::string>{"result.png"}) << "a temporary file was left";
}

TEST(ImageSave, RejectsBadArgumentsWithoutWriting) {
  ScratchFolder folder;
  const ImageRgba8 image = make_random_rgba8(4, 4, 1);
  EXPECT_THROW(save_image(folder.file("a.png"), image, 0), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("b.png"), image, 5), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("c.png"), ImageRgba8(), 4), ImageSaveError);
  EXPECT_THROW(save_image(folder.file("d.webp"), image, 4), ImageSaveError);
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

  for (const char* fine : {"a.jpg", "b.JPEG", "c.tga", "d.pnm", "e.pgm", "f.ppm"})
    EXPECT_EQ(check_output_path(folder.file(fine), Overwrite::Never), "") << fine;

  const std::string webp = check_output_path(folder.file("photo.webp"), Overwrite::Never);
  EXPECT_TRUE(contains(webp, "photo.webp")) << webp;
  EXPECT_TRUE(contains(webp, ".webp")) << webp;
  EXPECT_TRUE(contains(webp, ".png, .jpg, .bmp, .tga, .pnm (.pgm/.ppm), .tif, .pfm, .exr, .fits or .npy")) << webp;

  const std::string no_extension = check_output_path(folder.file("photo"), Overwrite::Never);
  EXPECT_TRUE(contains(no_extension, ".png, .jpg")) << no_extension;

  SaveOptions as_jpeg;
  as_jpeg.format = ImageFormat::Jpeg;
  EXPECT_EQ(check_output_path(folder.file("photo"), as_jpeg), "") << "an explicit format needs no extension";
  const std::string mismatch = check_output_path(folder.file("photo.png"), as_jpeg);
  EXPECT_TRUE(contains(mismatch, "the name says png but the format asked for is jpg")) << mismatch;

  const std::string missing = check_output_path(folder.file("nowhere/out.png"), Overwrite::Never);
  EXPECT_TRUE(contains(missing, "does not exist")) << missing;
  EXPECT_TRUE(contains(missing, "nowhere")) << missing;
  std::ofstream(folder.file("plain.png")) << "a file";
  const std::string under_a_file = check_output_path(folder.file("plain.png/out.png"), Overwrite::Never);
  EXPECT_TRUE(contains(under_a_file, "plain.png' is a file, not a folder")) << under_a_file;

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
