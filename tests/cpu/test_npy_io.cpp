// .npy 1D signals: float32 and float64 round-trip bit for bit through files and memory; headers
// NumPy writes (versions 1.0-3.0, Fortran order of a 1D array, Python 2 longs) are read; every file
// gausslab cannot filter gets an NpyError that names the file and the problem: wrong dtype, 2D,
// 0-D, empty, truncated, big-endian, absurd shapes, damaged headers, bytes beyond the data.
// (tests/cli/check_filter_vs_scipy.py reads and writes files through NumPy itself.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/npy_io.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

using test::ScratchFolder;

// A .npy file with this version and header text (not padded: the reader must not care) and
// `data` after it.
std::string npy_bytes(const std::string& dict, const std::string& data = "", int major = 1) {
  std::string file("\x93NUMPY", 6);
  file.push_back(static_cast<char>(major));
  file.push_back('\0');
  const std::size_t n = dict.size();
  file.push_back(static_cast<char>(n & 0xFF));
  file.push_back(static_cast<char>((n >> 8) & 0xFF));
  if (major >= 2) {
    file.push_back(static_cast<char>((n >> 16) & 0xFF));
    file.push_back(static_cast<char>((n >> 24) & 0xFF));
  }
  return file + dict + data;
}

std::string float_bytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

NpySignal read_memory(const std::string& bytes) { return read_npy_1d_from_memory(bytes.data(), bytes.size(), "x.npy"); }

// The NpyError message of reading `bytes`, or "" when it was read.
std::string read_error(const std::string& bytes) {
  try {
    read_memory(bytes);
  } catch (const NpyError& error) {
    return error.what();
  }
  return "";
}

// The filter's routing: a 1D array is a signal, a 2D or 3D one an image, read from the header alone;
// what is not a .npy header goes to the signal reader, which names the problem.
TEST(NpyIo, TheDimensionCountComesFromTheHeaderAlone) {
  ScratchFolder scratch;
  const std::vector<float> samples(12, 0.5f);
  const std::string signal = scratch.file("signal.npy");
  write_npy_1d(signal, samples.data(), samples.size());
  EXPECT_EQ(npy_dimension_count(signal), 1);
  EXPECT_TRUE(is_npy_signal(signal));
  const std::string image = scratch.file("image.npy");
  save_image(image, HostImage(4, 3, PixelFormat::Rgb16F).view());
  EXPECT_EQ(npy_dimension_count(image), 3);
  EXPECT_FALSE(is_npy_signal(image));
  const std::string junk = scratch.file("junk.npy");
  std::ofstream(junk) << "not numpy";
  EXPECT_EQ(npy_dimension_count(junk), -1);
  EXPECT_TRUE(is_npy_signal(junk));
  EXPECT_EQ(npy_dimension_count(scratch.file("missing.npy")), -1);
  EXPECT_EQ(npy_dimension_count(scratch.path().string()), -1);  // a folder is never read
  EXPECT_FALSE(is_npy_signal(scratch.file("image.png")));
}

// What npy_dimension_count's -1 hides: the header's problem in read_npy_1d's words, from the header
// alone (a file whose samples are cut short has a header that parses).
TEST(NpyIo, TheHeadersProblemIsSaidInTheReadersWordsWithoutReadingTheSamples) {
  ScratchFolder scratch;
  const auto file = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(scratch.file(name), std::ios::binary) << bytes;
    return scratch.file(name);
  };
  const auto reader_error = [](const std::string& path) {
    try {
      (void)read_npy_1d(path);
    } catch (const NpyError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string data(16, '\0');
  for (const std::string& path :
       {file("junk.npy", "not numpy"), file("empty.npy", ""),
        file("cut-header.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }").substr(0, 30)),
        file("structured.npy", npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", data)),
        file("no-shape.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, }", data)), scratch.file("none.npy"),
        scratch.path().string()}) {
    const std::string problem = npy_header_problem(path);
    EXPECT_NE(problem, "") << path;
    EXPECT_EQ(problem, reader_error(path)) << path;
    EXPECT_EQ(npy_dimension_count(path), -1) << path;
  }
  const std::string cut_samples = file("cut-samples.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, "
                                                                    "'shape': (1000,), }", data));
  EXPECT_EQ(npy_header_problem(cut_samples), "");
  EXPECT_NE(reader_error(cut_samples).find("truncated"), std::string::npos);
}

TEST(NpyIo, Float32RoundTripsBitForBitThroughAFile) {
  ScratchFolder folder;
  std::vector<float> samples = {0.0f, -0.0f, 1.5f, -3.25e-38f, std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::denorm_min(), 7.0f};
  write_npy_1d(folder.file("a.npy"), samples.data(), samples.size());
  const NpySignal signal = read_npy_1d(folder.file("a.npy"));
  ASSERT_EQ(signal.dtype, NpyDtype::Float32);
  ASSERT_EQ(signal.f32.size(), samples.size());
  EXPECT_TRUE(signal.f64.empty());
  for (std::size_t i = 0; i < samples.size(); ++i)
    EXPECT_EQ(std::signbit(signal.f32[i]), std::signbit(samples[i])) << i;
  EXPECT_EQ(signal.f32, samples);
}

TEST(NpyIo, Float64RoundTripsBitForBitThroughAFile) {
  ScratchFolder folder;
  std::vector<double> samples(1001);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::sin(0.37 * i) * 1e-3 + 1.0 / 3.0;
  NpySignal original;
  original.dtype = NpyDtype::Float64;
  original.f64 = samples;
  write_npy_1d(folder.file("b.npy"), original);
  const NpySignal signal = read_npy_1d(folder.file("b.npy"));
  ASSERT_EQ(signal.dtype, NpyDtype::Float64);
  EXPECT_EQ(signal.f64, samples);
  EXPECT_EQ(signal.size(), samples.size());
}

TEST(NpyIo, WrittenHeaderIsWhatNumpyWritesPaddedTo64Bytes) {
  const float one = 1.0f;
  const std::string file = encode_npy_1d(&one, 1);
  // 10 bytes of preamble + 57 of dict do not fit in 64: the header is padded to 128.
  ASSERT_EQ(file.size(), 128u + 4u);
  EXPECT_EQ(file.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(file.substr(10, 57), "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_EQ(file.find_first_not_of(' ', 67), 127u);
  EXPECT_EQ(file[127], '\n');
  const double two = 2.0;
  EXPECT_NE(encode_npy_1d(&two, 1).find("'descr': '<f8'"), std::string::npos);
}

TEST(NpyIo, HeadersAsNumpyWritesThemInEveryVersionAreRead) {
  const std::string data = float_bytes({1.0f, 2.0f, 3.0f});
  for (int major : {1, 2, 3}) {
    const NpySignal signal =
        read_memory(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }   \n", data, major));
    EXPECT_EQ(signal.f32, (std::vector<float>{1.0f, 2.0f, 3.0f})) << "version " << major;
  }
  // Another key order, double quotes, no trailing comma, a Python 2 long.
  const NpySignal other = read_memory(npy_bytes("{\"shape\": (3L,), \"descr\": \"<f4\", \"fortran_order\": False}", data));
  EXPECT_EQ(other.f32.size(), 3u);
}

TEST(NpyIo, FortranOrderOfAOneDimensionalArrayIsTheSameBytesAndIsRead) {
  const NpySignal signal =
      read_memory(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", float_bytes({5.0f, 6.0f})));
  EXPECT_EQ(signal.f32, (std::vector<float>{5.0f, 6.0f}));
}

TEST(NpyIo, WrongDtypesAreRefusedNamingTheDtypeAndTheConversion) {
  const std::string data(16, '\0');
  for (const auto& [descr, words] : std::vector<std::pair<std::string, std::string>>{{"<i4", "int32"},
                                                                                     {"<f2", "float16"},
                                                                                     {"|u1", "uint8"},
                                                                                     {"<c8", "complex64"},
                                                                                     {"|O", "Python objects"},
                                                                                     {"|b1", "bool"}}) {
    const std::string error =
        read_error(npy_bytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (4,), }", data));
    EXPECT_NE(error.find("'x.npy'"), std::string::npos) << error;
    EXPECT_NE(error.find(words), std::string::npos) << error;
    EXPECT_NE(error.find("float32 or float64"), std::string::npos) << error;
    EXPECT_NE(error.find("astype"), std::string::npos) << error;
  }
}

// A structured (record) array is said to be one, with its fields and what gausslab reads instead;
// the advice is what NumPy does (a.astype(np.float32) raises for several fields).
TEST(NpyIo, AStructuredArrayIsNamedAsSuchWithWhatIsRead) {
  const std::string data(16, '\0');
  for (const std::string& descr : {std::string("[('a', '<f4'), ('b', '<i4')]"),
                                   std::string("[('a', '<f4'), ('', '|V4'), ('b', '|i1'), ('', '|V7')]"),
                                   std::string("[(\"a\", '<f4', (2,)), ('b', [('c', '<i2')])]")}) {
    const std::string error =
        read_error(npy_bytes("{'descr': " + descr + ", 'fortran_order': False, 'shape': (2,), }", data));
    EXPECT_NE(error.find("'x.npy': the array is a structured (record) array"), std::string::npos) << error;
    EXPECT_NE(error.find("('a', 'b')"), std::string::npos) << descr << ": " << error;
    EXPECT_NE(error.find("uint8, uint16, float16, float32 or float64"), std::string::npos) << error;
    EXPECT_NE(error.find("1D signals"), std::string::npos) << error;
    EXPECT_NE(error.find("2D or 3D images"), std::string::npos) << error;
    EXPECT_NE(error.find("a['a']"), std::string::npos) << error;
    EXPECT_NE(error.find("structured_to_unstructured"), std::string::npos) << error;
    EXPECT_EQ(error.find("damaged"), std::string::npos) << error;
    EXPECT_EQ(error.find("astype"), std::string::npos) << error;
  }
  // A list that never closes is still said to be structured, without reading past the header.
  const std::string open = read_error(npy_bytes("{'descr': [('a', '<f4'", data));
  EXPECT_NE(open.find("structured (record) array"), std::string::npos) << open;
}

TEST(NpyIo, ADtypeWithAnAbsurdItemSizeIsRefusedWithoutOverflow) {
  // Found by fuzz_npy (fuzz/regressions/fuzz_npy/dtype_item_size_overflow.npy): the item size
  // "0000000297138122077" overflowed an int while the message was being written (UBSan).
  for (const char* descr : {"<f0000000297138122077", "<i99999999999", "<f12345"}) {
    const std::string error =
        read_error(npy_bytes(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (4,), }",
                             std::string(16, '\0')));
    EXPECT_NE(error.find(descr), std::string::npos) << error;
    EXPECT_NE(error.find("float32 or float64"), std::string::npos) << error;
  }
}

TEST(NpyIo, BigEndianSamplesAreRefusedWithTheNumpyFix) {
  const std::string error = read_error(npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                                                 std::string(8, '\0')));
  EXPECT_NE(error.find("big-endian"), std::string::npos) << error;
  EXPECT_NE(error.find("newbyteorder"), std::string::npos) << error;
}

TEST(NpyIo, TwoDimensionalAndZeroDimensionalArraysAreRefusedSayingWhatToSave) {
  const std::string two_d = read_error(
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(24, '\0')));
  EXPECT_NE(two_d.find("2D, of shape (2, 3)"), std::string::npos) << two_d;
  EXPECT_NE(two_d.find("ravel"), std::string::npos) << two_d;
  const std::string fortran_2d = read_error(
      npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", std::string(24, '\0')));
  EXPECT_NE(fortran_2d.find("2D"), std::string::npos) << fortran_2d;
  const std::string scalar =
      read_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", std::string(4, '\0')));
  EXPECT_NE(scalar.find("0-dimensional"), std::string::npos) << scalar;
  const std::string empty = read_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }"));
  EXPECT_NE(empty.find("empty"), std::string::npos) << empty;
}

TEST(NpyIo, TruncatedFilesAreRefusedAtEveryCut) {
  const std::vector<float> samples = {1, 2, 3, 4, 5};
  const std::string file = encode_npy_1d(samples.data(), samples.size());
  for (std::size_t cut = 0; cut < file.size(); ++cut) {
    const std::string error = read_error(file.substr(0, cut));
    EXPECT_FALSE(error.empty()) << "cut at " << cut;
    if (cut >= 128) {
      EXPECT_NE(error.find("truncated: shape (5,) of float32 needs 20 bytes"), std::string::npos) << error;
    }
  }
  const std::string longer = read_error(file + "xyz");
  EXPECT_NE(longer.find("3 bytes beyond the 5 samples"), std::string::npos) << longer;
}

TEST(NpyIo, AbsurdShapesAndHeadersAreRefusedBeforeAnyAllocation) {
  // 2^40 samples claimed in a 100-byte file: refused by the size limit, not by a failed allocation.
  const std::string huge = read_error(
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", std::string(8, '\0')));
  EXPECT_NE(huge.find("more than the 536870912"), std::string::npos) << huge;
  const std::string overflow = read_error(npy_bytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", std::string(8, '\0')));
  EXPECT_NE(overflow.find("malformed"), std::string::npos) << overflow;
  // A version 2.0 header length of 4 GiB.
  std::string long_header("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14);
  EXPECT_NE(read_error(long_header).find("header claims 4294967295 bytes"), std::string::npos);
  EXPECT_NE(read_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "", 9)).find("version 9.0"),
            std::string::npos);
}

TEST(NpyIo, DamagedHeadersAndOtherFilesAreRefusedAsSuch) {
  EXPECT_NE(read_error("P6\n1 1\n255\n\x01\x02\x03").find("not a NumPy .npy file"), std::string::npos);
  EXPECT_NE(read_error("").find("not a NumPy .npy file"), std::string::npos);
  for (const std::string& dict : {std::string("{'descr': '<f4', 'shape': (1,), }"),  // missing key
                                  std::string("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }"),
                                  std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}"),
                                  std::string("{'descr': '<f4 'fortran_order': False, 'shape': (1,)}"),
                                  std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"),
                                  std::string("['descr']")}) {
    const std::string error = read_error(npy_bytes(dict, std::string(4, '\0')));
    EXPECT_NE(error.find("'x.npy'"), std::string::npos) << dict << ": " << error;
  }
}

TEST(NpyIo, FilesAreNeverOverwrittenUnlessAskedAndNoTemporaryIsLeft) {
  ScratchFolder folder;
  const std::string path = folder.file("c.npy");
  const float first = 1.0f, second = 2.0f;
  write_npy_1d(path, &first, 1);
  try {
    write_npy_1d(path, &second, 1);
    FAIL() << "an existing file was replaced";
  } catch (const NpyError& error) {
    EXPECT_NE(std::string(error.what()).find("already exists"), std::string::npos) << error.what();
  }
  EXPECT_EQ(read_npy_1d(path).f32[0], 1.0f);
  write_npy_1d(path, &second, 1, Overwrite::Allowed);
  EXPECT_EQ(read_npy_1d(path).f32[0], 2.0f);
  EXPECT_THROW(write_npy_1d(folder.file("missing/d.npy"), &first, 1), NpyError);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

// What the writer would refuse only after the work is refused by the path check, in
// output_file_problem's words (a link to nothing and a 256-byte name used to pass it).
TEST(NpyIo, TheOutputCheckRefusesWhatTheWriterWouldRefuse) {
  ScratchFolder folder;
  const std::string link = folder.file("dangling.npy");
  ASSERT_EQ(::symlink("missing.npy", link.c_str()), 0);
  const std::string too_long = folder.file(std::string(252, 'n') + ".npy");
  for (const std::string& path : {link, too_long}) {
    const std::string problem = check_npy_output_path(path, Overwrite::Never);
    EXPECT_NE(problem, "") << path;
    EXPECT_EQ(problem, output_file_problem(path, Overwrite::Never)) << path;
  }
  EXPECT_NE(check_npy_output_path(link, Overwrite::Never).find("symbolic link to 'missing.npy'"), std::string::npos);
  EXPECT_EQ(check_npy_output_path(link, Overwrite::Allowed), "");
  std::filesystem::create_directory(folder.file("looks-like.npy"));
  EXPECT_NE(check_npy_output_path(folder.file("looks-like.npy"), Overwrite::Allowed).find("is a folder"), std::string::npos);
  EXPECT_EQ(check_npy_output_path(folder.file("fine.npy"), Overwrite::Never), "");
}

TEST(NpyIo, MissingFilesAndFoldersAreNamed) {
  ScratchFolder folder;
  try {
    read_npy_1d(folder.file("none.npy"));
    FAIL();
  } catch (const NpyError& error) {
    EXPECT_NE(std::string(error.what()).find("none.npy': cannot open"), std::string::npos) << error.what();
  }
  EXPECT_THROW(read_npy_1d(folder.path().string()), NpyError);
  std::ofstream(folder.file("empty.npy")).close();
  EXPECT_THROW(read_npy_1d(folder.file("empty.npy")), NpyError);
}

TEST(NpyIo, NpyPathsAreRecognisedByExtension) {
  EXPECT_TRUE(is_npy_path("a.npy"));
  EXPECT_TRUE(is_npy_path("dir/B.NPY"));
  EXPECT_FALSE(is_npy_path("a.npz"));
  EXPECT_FALSE(is_npy_path("npy"));
  EXPECT_FALSE(is_npy_path("a.png"));
}

}  // namespace
}  // namespace gausslab
