// Frames from image files go through core's codecs and nothing else (issues #36, #40): a hostile
// file is refused as core refuses it, before any pixel memory; palette, 16-bit and float frames
// come in as core reads them, with the file's depth (no reduction to 8 bits, no clamping of a
// float sky in counts); and a sequence of such frames gives the shifts of the sky they show.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/sequence/frame_io.hpp"
#include "gausslab/sequence/frame_source.hpp"
#include "gausslab/sequence/sequence_engine.hpp"
#include "sequence_test_kit.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string load_error(const std::string& path, bool sequence) {
  try {
    if (sequence)
      load_grey_frame(path);
    else
      load_image(path);
  } catch (const ImageLoadError& error) {
    return error.what();
  }
  return "(no error)";
}

// Core's samples of `path` as grey: Rec. 709 luminance for colour, the first channel otherwise,
// over `scale` (the documented rule, computed here from core's own result).
std::vector<float> core_grey(const std::string& path, float scale) {
  const LoadedImage loaded = load_image(path);
  const HostImage& image = loaded.image;
  std::vector<float> grey;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      grey.push_back(image.channels() >= 3 ? (0.2126f * image.sample(x, y, 0) + 0.7152f * image.sample(x, y, 1) +
                                              0.0722f * image.sample(x, y, 2)) / scale
                                           : image.sample(x, y, 0) / scale);
  return grey;
}

void expect_frame_equals(const ImageF32& frame, const std::vector<float>& expected, const std::string& name) {
  ASSERT_EQ(frame.pixel_count(), expected.size()) << name;
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(frame.data()[i], expected[i]) << name << " sample " << i;
}

TEST(SequenceFrameFiles, AHostilePngIsRefusedWithCoresMessage) {
  // Issue #40: the 69-byte PNG declaring 20000×20000 RGBA cost the sequence's own reader 6.3 GB
  // and 17.6 s; a palette index beyond the palette was accepted. Now the words are core's.
  for (const char* name : {"png_header_bigger_than_data.png", "png_huge_header.png", "png_palette_index_out_of_range.png"}) {
    const std::string path = test::test_data_path(std::string("malformed/") + name);
    const std::string ours = load_error(path, true), core = load_error(path, false);
    EXPECT_EQ(ours, core) << name;
    EXPECT_TRUE(contains(ours, name)) << ours;
  }
}

#if !defined(__SANITIZE_ADDRESS__)  // the address sanitizer needs far more address space than this limit
// In a child process capped at 256 MiB of address space: exits 0 when the frame is refused with an
// ImageLoadError naming it, 3 when it loads, 2 for any other failure (std::bad_alloc).
[[noreturn]] void load_frame_with_capped_memory(const std::string& path, const std::string& name) {
  struct rlimit cap {};
  cap.rlim_cur = cap.rlim_max = 256u << 20;
  setrlimit(RLIMIT_AS, &cap);
  try {
    load_grey_frame(path);
    std::exit(3);
  } catch (const ImageLoadError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(contains(e.what(), name) ? 0 : 1);
  } catch (...) {
    std::exit(2);
  }
}

TEST(SequenceFrameFilesDeathTest, TheHostilePngIsRefusedBeforeAnyPixelMemory) {
  // 20000×20000 RGBA needs 1.6 GB for the rows alone: refused within 256 MiB, for what its 64
  // bytes of data cannot hold.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string name = "png_header_bigger_than_data.png";
  EXPECT_EXIT(load_frame_with_capped_memory(test::test_data_path("malformed/" + name), name),
              testing::ExitedWithCode(0), "");
}
#endif

TEST(SequenceFrameFiles, PaletteAndEightBitFramesAreCoresSamplesAsGrey) {
  for (const char* name : {"palette_color.png", "formats/png_palette_trns.png", "formats/png_palette4.png",
                           "chelsea.png", "formats/png_grey1.png", "formats/gif_palette.gif"}) {
    const std::string path = test::test_data_path(name);
    expect_frame_equals(load_grey_frame(path), core_grey(path, 255.0f), name);
  }
}

TEST(SequenceFrameFiles, SixteenBitFramesKeepEveryLevel) {
  // PNG, TIFF and FITS 16-bit frames: levels / 65535 (a PGM's / its maxval), never reduced to 8 bits.
  struct Case {
    const char* name;
    float scale;
  };
  for (const Case& c : {Case{"formats/png_grey16.png", 65535.0f}, Case{"formats/png_rgb16.png", 65535.0f},
                        Case{"formats/png_interlaced_grey16.png", 65535.0f}, Case{"formats/tiff_grey16.tif", 65535.0f},
                        Case{"chessboard_GRAY_U16.tif", 65535.0f}, Case{"formats/fits_uint16.fits", 65535.0f},
                        Case{"formats/pnm_p5_maxval1023.pgm", 1023.0f}}) {
    const std::string path = test::test_data_path(c.name);
    const ImageF32 frame = load_grey_frame(path);
    expect_frame_equals(frame, core_grey(path, c.scale), c.name);
  }
  // The levels themselves: 1000 + 7x + 1000y survive (8 bits would merge levels 7 apart).
  test::ScratchFolder scratch;
  ImageF32 image(5, 3);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) image.at(x, y) = static_cast<float>(1000 + 7 * x + 1000 * y) / 65535.0f;
  const std::string path = scratch.file("f.png");
  save_grey_png16(path, image, Overwrite::Never);
  EXPECT_EQ(load_image(path).image.format(), PixelFormat::Grey16);
  const ImageF32 back = load_grey_frame(path);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) EXPECT_EQ(back.at(x, y) * 65535.0f, static_cast<float>(1000 + 7 * x + 1000 * y));
}

TEST(SequenceFrameFiles, FloatFramesKeepTheirValues) {
  // A FITS or TIFF sky in counts: the values as they are, beyond [0, 1] and negative included.
  test::ScratchFolder scratch;
  HostImage sky(4, 2, PixelFormat::F32);
  const float values[8] = {1234.5f, -17.25f, 1e5f, 0.0f, 65535.5f, 3.0e-3f, -1e-7f, 42.0f};
  for (int i = 0; i < 8; ++i) sky.set_sample(i % 4, i / 4, 0, values[i]);
  for (const char* name : {"sky.fits", "sky.tif", "sky.npy", "sky.pfm", "sky.exr"}) {
    const std::string path = scratch.file(name);
    save_image(path, sky.view(), Overwrite::Never);
    const ImageF32 frame = load_grey_frame(path);
    ASSERT_EQ(frame.width(), 4) << name;
    for (int i = 0; i < 8; ++i) EXPECT_EQ(frame.at(i % 4, i / 4), values[i]) << name << " sample " << i;
  }
  // The format samples (NaN, infinities, -0 and subnormals among them): core's values where every
  // one is finite, refused otherwise.
  for (const char* name : {"formats/tiff_float32.tif", "formats/exr_float_grey.exr", "formats/npy_float32_grey.npy",
                           "formats/pfm_rgb.pfm", "formats/pfm_grey_big_endian.pfm", "formats/exr_half_rgba.exr"}) {
    const std::string path = test::test_data_path(name);
    const std::vector<float> core = core_grey(path, 1.0f);
    if (std::all_of(core.begin(), core.end(), [](float v) { return std::isfinite(v); }))
      expect_frame_equals(load_grey_frame(path), core, name);
    else
      EXPECT_TRUE(contains(load_error(path, true), "not finite")) << name;
  }
}

TEST(SequenceFrameFiles, AFrameWithoutAValueEverywhereIsRefusedNamingWhere) {
  test::ScratchFolder scratch;
  HostImage sky(3, 2, PixelFormat::F32);
  sky.set_sample(2, 1, 0, std::nanf(""));
  sky.set_sample(0, 1, 0, INFINITY);
  const std::string path = scratch.file("holes.fits");
  save_image(path, sky.view(), Overwrite::Never);
  const std::string message = load_error(path, true);
  EXPECT_TRUE(contains(message, "holes.fits") && contains(message, "2 samples that are not finite") &&
              contains(message, "x 0, y 1"))
      << message;
}

TEST(SequenceFrameFiles, AFolderOfFitsFramesInCountsGivesTheSkysShifts) {
  // The accuracy sky (fractions of full scale) written as float32 FITS in counts (500 + 40000 × v),
  // read from the folder: the same verdicts, shifts within 1e-4 px of the frames in memory.
  SyntheticSpec spec = test::accuracy_sky(14);
  const SyntheticSequence sky(spec);
  const std::vector<ImageF32> frames = test::frames_of(sky);
  test::ScratchFolder scratch;
  for (std::size_t t = 0; t < frames.size(); ++t) {
    HostImage counts(spec.width, spec.height, PixelFormat::F32);
    for (int y = 0; y < spec.height; ++y)
      for (int x = 0; x < spec.width; ++x) counts.set_sample(x, y, 0, 500.0f + 40000.0f * frames[t].at(x, y));
    save_image(scratch.file("sky_" + std::to_string(t) + ".fits"), counts.view(), Overwrite::Never);
  }
  const auto source = open_frame_folder(scratch.path().string());
  std::vector<ImageF32> read;
  while (auto f = source->next()) {
    ASSERT_TRUE(f->error.empty()) << f->name << ": " << f->error;
    read.push_back(std::move(f->image));
  }
  ASSERT_EQ(read.size(), frames.size());
  SequenceSettings settings;
  settings.history = 6;
  auto engine = create_sequence_engine(SequenceBackend::Cpu);
  const std::vector<FrameOutcome> memory = test::run_engine(*engine, frames, settings);
  const std::vector<FrameOutcome> files = test::run_engine(*engine, read, settings);
  ASSERT_EQ(files.size(), memory.size());
  for (std::size_t t = 0; t < memory.size(); ++t) {
    EXPECT_EQ(files[t].verdict, memory[t].verdict) << "frame " << t;
    EXPECT_NEAR(files[t].shift.dx, memory[t].shift.dx, 1e-4) << "frame " << t;
    EXPECT_NEAR(files[t].shift.dy, memory[t].shift.dy, 1e-4) << "frame " << t;
  }
}

}  // namespace
}  // namespace gausslab
