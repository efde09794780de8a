// Custom kernels from the command line and from files: lists, text matrices, .npy matrices, and
// the flags' combinations; every bad input gets a message that names it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "gausslab/core/kernel_file.hpp"
#include "gausslab/core/kernel_options.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

// The message of the UsageError `f` throws ("" when it throws none).
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A .npy file's bytes: version 1.0, the header dict as given, then `data`.
std::string npy(const std::string& dict, const std::string& data) {
  std::string header = dict;
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string file("\x93NUMPY\x01\x00", 8);
  file.push_back(static_cast<char>(header.size() & 0xFF));
  file.push_back(static_cast<char>(header.size() >> 8));
  return file + header + data;
}

template <class T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

TEST(KernelWeights, ListsTakeCommasAndSpaces) {
  EXPECT_EQ(parse_kernel_weights("--kernel", "1,2,1"), (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(parse_kernel_weights("--kernel", " 0.25, 0.5 ,0.25 "), (std::vector<double>{0.25, 0.5, 0.25}));
  EXPECT_EQ(parse_kernel_weights("--kernel", "-1 0 1e0"), (std::vector<double>{-1, 0, 1}));
}

TEST(KernelWeights, BadListsAreNamed) {
  const auto error = [](const char* text) { return usage_error([&] { parse_kernel_weights("--kernel", text); }); };
  EXPECT_TRUE(contains(error(""), "--kernel: the list of weights is empty")) << error("");
  EXPECT_TRUE(contains(error("1,,1"), "weight 2 is empty")) << error("1,,1");
  EXPECT_TRUE(contains(error("1,2,"), "weight 3 is empty")) << error("1,2,");
  EXPECT_TRUE(contains(error("1,x,1"), "weight 2: 'x' is not a number")) << error("1,x,1");
  EXPECT_TRUE(contains(error("1,nan,1"), "'nan' is NaN")) << error("1,nan,1");
  EXPECT_TRUE(contains(error("-inf"), "is infinite")) << error("-inf");
  EXPECT_TRUE(contains(error("0x10"), "is not a number")) << error("0x10");
  EXPECT_TRUE(contains(error("1e999"), "beyond float64's range")) << error("1e999");
}

TEST(KernelMatrixText, RowsCommentsAndSeparators) {
  const FilterKernel k = parse_kernel_matrix("# a 3x5 kernel\n1 2 3 4 5\n\n6,7,8,9,10  # row 2\r\n 11\t12, 13 14 15\n", "k.txt");
  EXPECT_EQ(k.kind, KernelKind::Matrix);
  EXPECT_EQ(k.matrix_width, 5);
  EXPECT_EQ(k.matrix_height, 3);
  EXPECT_EQ(k.matrix_at(2, 4), 15.0);
  EXPECT_EQ(k.matrix_at(1, 0), 6.0);
}

TEST(KernelMatrixText, BadFilesAreNamedWithTheRowAndColumn) {
  const auto error = [](const std::string& text) { return usage_error([&] { parse_kernel_matrix(text, "k.txt"); }); };
  EXPECT_TRUE(contains(error("1 2 3\n4 5\n"), "row 2 has 2 numbers but row 1 (line 1) has 3")) << error("1 2 3\n4 5\n");
  EXPECT_TRUE(contains(error("1 2 3\n4 abc 6\n"), "line 2: row 2, column 2: 'abc' is not a number"))
      << error("1 2 3\n4 abc 6\n");
  EXPECT_TRUE(contains(error("1 NaN 3\n"), "is NaN")) << error("1 NaN 3\n");
  EXPECT_TRUE(contains(error("# only a comment\n\n"), "holds no numbers")) << error("# only a comment\n\n");
  EXPECT_TRUE(contains(error("[[1, 2, 1], [2, 4, 2], [1, 2, 1]]"), "brackets, as a Python list"));
  EXPECT_TRUE(contains(error(std::string("1 2\0 3", 6)), "binary data"));
}

TEST(KernelMatrixNpy, Float64Float32FortranOrderAndIntegers) {
  FilterKernel k = parse_kernel_matrix(
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1), }", bytes_of<double>({1.5, -2, 3})), "k.npy");
  EXPECT_EQ(k.matrix_width, 1);
  EXPECT_EQ(k.matrix_height, 3);
  EXPECT_EQ(k.matrix, (std::vector<double>{1.5, -2, 3}));
  // Fortran order: the bytes run down the columns.
  k = parse_kernel_matrix(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                              bytes_of<float>({1, 4, 2, 5, 3, 6})),
                          "k.npy");
  EXPECT_EQ(k.matrix, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  k = parse_kernel_matrix(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 3), }",
                              bytes_of<std::int64_t>({-1, 0, 7})),
                          "k.npy");
  EXPECT_EQ(k.matrix, (std::vector<double>{-1, 0, 7}));
  k = parse_kernel_matrix(npy("{'descr': '<i2', 'fortran_order': False, 'shape': (1, 1), }",
                              bytes_of<std::int16_t>({-300})),
                          "k.npy");
  EXPECT_EQ(k.matrix, (std::vector<double>{-300}));
}

TEST(KernelMatrixNpy, OtherShapesTypesAndDamageAreNamed) {
  const auto error = [](const std::string& bytes) { return usage_error([&] { parse_kernel_matrix(bytes, "k.npy"); }); };
  const std::string one_d = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", bytes_of<double>({1, 2, 1}));
  EXPECT_TRUE(contains(error(one_d), "is 1D of shape (3,), not a 2D kernel")) << error(one_d);
  EXPECT_TRUE(contains(error(one_d), "--kernel"));
  const std::string three_d =
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }", bytes_of<double>({1}));
  EXPECT_TRUE(contains(error(three_d), "is 3D")) << error(three_d);
  const std::string big_endian = npy("{'descr': '>f8', 'fortran_order': False, 'shape': (1, 1), }", std::string(8, '\0'));
  EXPECT_TRUE(contains(error(big_endian), "big-endian")) << error(big_endian);
  const std::string complex = npy("{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }", std::string(16, '\0'));
  EXPECT_TRUE(contains(error(complex), "is not a kernel's")) << error(complex);
  const std::string cut = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }", std::string(40, '\0'));
  EXPECT_TRUE(contains(error(cut), "holds 40 bytes of weights")) << error(cut);
  EXPECT_TRUE(contains(error(std::string("\x93NUMPY\x01", 7)), "truncated"));
}

TEST(KernelMatrixFile, FilesAreReadAndTheirProblemsNamed) {
  const test::ScratchFolder dir;
  std::ofstream(dir.file("k.txt")) << "1 2 1\n2 4 2\n1 2 1\n";
  EXPECT_EQ(read_kernel_matrix_file(dir.file("k.txt")).matrix_height, 3);
  EXPECT_TRUE(contains(usage_error([&] { read_kernel_matrix_file(dir.file("missing.txt")); }),
                       "cannot open the kernel file"));
  EXPECT_TRUE(contains(usage_error([&] { read_kernel_matrix_file(dir.path().string()); }), "is a folder"));
  std::ofstream(dir.file("empty.txt")).flush();
  EXPECT_TRUE(contains(usage_error([&] { read_kernel_matrix_file(dir.file("empty.txt")); }), "is empty"));
}

// ---- the flags ---------------------------------------------------------------------------------

FilterParams apply(std::vector<std::string> args, std::vector<std::string> gaussian_flags = {}) {
  args.insert(args.begin(), "program");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  ArgReader reader(static_cast<int>(argv.size()), argv.data());
  KernelFlags flags;
  std::string arg;
  while (reader.next(arg))
    if (!read_kernel_flag(arg, reader, flags)) throw UsageError("not a kernel flag: " + arg);
  FilterParams params;
  apply_kernel_flags(flags, gaussian_flags, params);
  return params;
}

TEST(KernelFlags, EachKindOfKernelAndTheRounding) {
  FilterParams p = apply({"--kernel", "1,2,1", "--convolve", "--normalize", "--rounding", "floor"});
  EXPECT_EQ(p.kernel, [] {
    FilterKernel k = FilterKernel::mask({1, 2, 1});
    k.convolve = k.normalize = true;
    return k;
  }());
  EXPECT_EQ(p.rounding, IntegerRounding::Floor);
  p = apply({"--kernel-x", "1,0,-1", "--kernel-y=1,2,1"});
  EXPECT_EQ(p.kernel, FilterKernel::pair({1, 0, -1}, {1, 2, 1}));
  p = apply({"--rounding", "ceil"});
  EXPECT_FALSE(p.custom_kernel());
  EXPECT_EQ(p.rounding, IntegerRounding::Ceil);
}

TEST(KernelFlags, ContradictionsAreRefusedWithTheFlagsNamed) {
  const auto error = [](std::vector<std::string> args, std::vector<std::string> gaussian = {}) {
    return usage_error([&] { apply(std::move(args), std::move(gaussian)); });
  };
  EXPECT_TRUE(contains(error({"--kernel", "1,2,1"}, {"--sigma"}), "--kernel gives the kernel's weights themselves, so "
                                                                   "--sigma, which sets the Gaussian, does not apply"))
      << error({"--kernel", "1,2,1"}, {"--sigma"});
  EXPECT_TRUE(contains(error({"--kernel", "1,2,1"}, {"--sigma", "--radius"}), "--sigma and --radius"));
  EXPECT_TRUE(contains(error({"--kernel", "1,2,1", "--kernel-x", "1"}), "each give a kernel; give one"));
  EXPECT_TRUE(contains(error({"--kernel-x", "1,2,1"}), "--kernel-x needs --kernel-y too"));
  EXPECT_TRUE(contains(error({"--kernel-y", "1,2,1"}), "--kernel-y needs --kernel-x too"));
  EXPECT_TRUE(contains(error({"--convolve"}), "--convolve flips a custom kernel"));
  EXPECT_TRUE(contains(error({"--normalize"}), "--normalize divides a custom kernel"));
  EXPECT_TRUE(contains(error({"--kernel", "1,2"}), "--kernel: the mask has 2 weights, an even count"))
      << error({"--kernel", "1,2"});
  EXPECT_TRUE(contains(error({"--kernel", "-1,0,1", "--normalize"}), "sum to 0"));
  EXPECT_TRUE(contains(error({"--kernel", "1", "--kernel", "1"}), "--kernel is given twice"));
  EXPECT_TRUE(contains(error({"--rounding", "up"}), "--rounding: unknown rounding 'up'; use nearest"));
  EXPECT_TRUE(contains(error({"--kernel-2d", "/nonexistent/k.txt"}), "'/nonexistent/k.txt': cannot open"));
}

}  // namespace
}  // namespace gausslab
