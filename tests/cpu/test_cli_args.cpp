// Command-line parsing shared by the three programs: values, lists, sizes, --flag=value.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {
namespace {

// Runs `parse` and returns the UsageError's message ("" and a failure when nothing was thrown).
template <class Parse>
std::string usage_error(Parse parse) {
  try {
    parse();
    ADD_FAILURE() << "no UsageError";
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ParseDouble, AcceptsNumbers) {
  EXPECT_DOUBLE_EQ(parse_double("--sigma", "2.5"), 2.5);
  EXPECT_DOUBLE_EQ(parse_double("--sigma", "-3"), -3.0);
  EXPECT_DOUBLE_EQ(parse_double("--sigma", "1e2"), 100.0);
}

TEST(ParseDouble, RejectsEverythingElseNamingFlagAndValue) {
  for (const char* text : {"abc", "", "2.5x", "nan", "inf", "-inf", "1e999", " ", "0x10", "0x1p3", "infinity", " 2"}) {
    const std::string message = usage_error([&] { parse_double("--sigma", text); });
    EXPECT_TRUE(contains(message, "--sigma")) << "'" << text << "': " << message;
    EXPECT_TRUE(contains(message, "'" + std::string(text) + "'")) << "'" << text << "': " << message;
    EXPECT_TRUE(contains(message, "not a number")) << "'" << text << "': " << message;
  }
}

TEST(ParseInt, AcceptsWholeNumbersInRange) {
  EXPECT_EQ(parse_int("--runs", "12", 1, 100), 12);
  EXPECT_EQ(parse_int("--runs", "1", 1, 100), 1);
  EXPECT_EQ(parse_int("--runs", "100", 1, 100), 100);
  EXPECT_EQ(parse_int("--offset", "-7", -10, 10), -7);
}

TEST(ParseInt, RejectsFractionsGarbageAndOutOfRange) {
  for (const char* text : {"1.5", "x", "", "12abc", "99999999999999999999"}) {
    const std::string message = usage_error([&] { parse_int("--runs", text, 1, 100); });
    EXPECT_TRUE(contains(message, "--runs")) << text << ": " << message;
    EXPECT_TRUE(contains(message, "not a whole number")) << text << ": " << message;
  }
  const std::string message = usage_error([] { parse_int("--runs", "0", 1, 100); });
  EXPECT_TRUE(contains(message, "outside [1, 100]")) << message;
  EXPECT_TRUE(contains(usage_error([] { parse_int("--runs", "101", 1, 100); }), "outside [1, 100]"));
}

TEST(ParseBorder, AcceptsEveryModeAndListsThemOnError) {
  for (BorderMode mode : kAllBorderModes) EXPECT_EQ(parse_border("--border", to_string(mode)), mode);
  const std::string message = usage_error([] { parse_border("--border", "replicate"); });
  EXPECT_TRUE(contains(message, "--border")) << message;
  EXPECT_TRUE(contains(message, "'replicate'")) << message;
  EXPECT_TRUE(contains(message, "reflect, mirror, nearest, constant, wrap")) << message;
}

TEST(ParsePixelFormat, AcceptsEveryFormatsName) {
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto format = static_cast<PixelFormat>(i);
    EXPECT_EQ(parse_pixel_format("--format", to_string(format)), format);
  }
  EXPECT_EQ(parse_pixel_format("--format", "RGBA8"), PixelFormat::Rgba8);
  EXPECT_EQ(parse_pixel_format("--format", "gray16"), PixelFormat::Grey16);
  EXPECT_EQ(parse_pixel_format("--format", "grey32f"), PixelFormat::F32);
  const std::string message = usage_error([] { parse_pixel_format("--format", "rgba9"); });
  EXPECT_TRUE(contains(message, "'rgba9'")) << message;
  EXPECT_TRUE(contains(message, "rgba8, grey16")) << message;
}

TEST(ParseSize, AcceptsWxHWithEitherSeparator) {
  EXPECT_EQ(parse_size("--size", "3840x2160"), std::make_pair(3840, 2160));
  EXPECT_EQ(parse_size("--size", "1×1"), std::make_pair(1, 1));
  EXPECT_EQ(parse_size("--size", "65536x1"), std::make_pair(65536, 1));
}

TEST(ParseSize, RejectsBadSizes) {
  EXPECT_TRUE(contains(usage_error([] { parse_size("--size", "3840"); }), "WxH"));
  EXPECT_TRUE(contains(usage_error([] { parse_size("--size", "0x5"); }), "outside [1, 65536]"));
  EXPECT_TRUE(contains(usage_error([] { parse_size("--size", "65537x1"); }), "outside [1, 65536]"));
  EXPECT_TRUE(contains(usage_error([] { parse_size("--size", "10x"); }), "not a whole number"));
  EXPECT_TRUE(contains(usage_error([] { parse_size("--size", "-4x4"); }), "--size"));
}

TEST(ParseList, SplitsOnCommasAndRejectsEmptyItems) {
  const std::vector<double> sigmas = parse_list<double>("--sigmas", "1,2.5,8", parse_double);
  EXPECT_EQ(sigmas, (std::vector<double>{1.0, 2.5, 8.0}));
  EXPECT_EQ(parse_list<double>("--sigmas", "4", parse_double), std::vector<double>{4.0});
  const std::vector<BorderMode> borders = parse_list<BorderMode>("--borders", "wrap,reflect", parse_border);
  EXPECT_EQ(borders, (std::vector<BorderMode>{BorderMode::Wrap, BorderMode::Reflect}));
  for (const char* text : {"", "1,,2", "1,", ",1"}) {
    const std::string message = usage_error([&] { parse_list<double>("--sigmas", text, parse_double); });
    EXPECT_TRUE(contains(message, "empty item")) << "'" << text << "': " << message;
  }
  const std::string message = usage_error([] { parse_list<double>("--sigmas", "1,x", parse_double); });
  EXPECT_TRUE(contains(message, "'x'")) << message;
}

TEST(ArgReader, ReadsFlagsValuesAndPositionals) {
  const char* argv[] = {"prog", "--sigma=2", "--border", "wrap", "in.png", "-", "--verbose", "--out=", "-x"};
  ArgReader args(9, argv);
  std::string arg;
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "--sigma");
  EXPECT_EQ(args.value(arg), "2");
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "--border");
  EXPECT_EQ(args.value(arg), "wrap");
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "in.png");
  EXPECT_FALSE(ArgReader::is_option(arg));
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "-");
  EXPECT_FALSE(ArgReader::is_option(arg)) << "'-' is stdin by convention, not an option";
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "--verbose");
  EXPECT_TRUE(ArgReader::is_option(arg));
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "--out");
  EXPECT_EQ(args.value(arg), "") << "--out= gives an empty value";
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "-x");
  EXPECT_TRUE(ArgReader::is_option(arg));
  EXPECT_FALSE(args.next(arg));
}

TEST(ArgReader, MissingValueIsAnError) {
  const char* argv[] = {"prog", "--sigma"};
  ArgReader args(2, argv);
  std::string arg;
  ASSERT_TRUE(args.next(arg));
  const std::string message = usage_error([&] { args.value(arg); });
  EXPECT_TRUE(contains(message, "--sigma")) << message;
  EXPECT_TRUE(contains(message, "needs a value")) << message;
}

TEST(ArgReader, ValueGivenToAFlagWithoutOneIsAnError) {
  const char* argv[] = {"prog", "--verbose=yes", "next"};
  ArgReader args(3, argv);
  std::string arg;
  ASSERT_TRUE(args.next(arg));
  EXPECT_EQ(arg, "--verbose");
  // The caller treats --verbose as a switch and moves on without taking its value.
  const std::string message = usage_error([&] { args.next(arg); });
  EXPECT_TRUE(contains(message, "--verbose")) << message;
  EXPECT_TRUE(contains(message, "does not take a value")) << message;
  EXPECT_TRUE(contains(message, "'yes'")) << message;
}

}  // namespace
}  // namespace gausslab
