// gausslab-sequence's option parsing and text outputs (the runs themselves: check_sequence_cli.py).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gausslab/core/cli_args.hpp"
#include "sequence_options.hpp"
#include "sequence_outputs.hpp"

namespace gausslab {
namespace {

SequenceOptions parse(std::vector<const char*> args) {
  args.insert(args.begin(), "gausslab-sequence");
  return parse_sequence_options(static_cast<int>(args.size()), args.data());
}

std::string usage_error(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(SequenceCli, TheIssuesCommandLineParses) {
  const SequenceOptions o = parse({"frames/", "--out-dir", "out", "--history", "12", "--degree", "3", "--gamma",
                                   "0.001", "--method", "separable_shared", "--sigma", "1.5"});
  EXPECT_EQ(o.inputs, std::vector<std::string>{"frames/"});
  EXPECT_EQ(o.out_dir, "out");
  EXPECT_EQ(o.settings.history, 12);
  EXPECT_EQ(o.settings.degree, 3);
  EXPECT_DOUBLE_EQ(o.settings.gamma, 0.001);
  EXPECT_EQ(o.method_id, "separable_shared");
  EXPECT_DOUBLE_EQ(o.params.sigma, 1.5);
}

TEST(SequenceCli, TheHardCasesOptionsParse) {
  const SequenceOptions o = parse({"in", "--out-dir", "o", "--weights", "correlation", "--min-match", "6",
                                   "--max-residual", "4", "--target-threshold", "0", "--strict"});
  EXPECT_EQ(o.settings.weights, WeightMethod::Correlation);
  EXPECT_DOUBLE_EQ(o.settings.min_match, 6.0);
  EXPECT_DOUBLE_EQ(o.settings.max_residual, 4.0);
  EXPECT_DOUBLE_EQ(o.settings.target_threshold, 0.0);
  EXPECT_TRUE(o.strict);
  const SequenceOptions d = parse({"in", "--out-dir", "o"});
  EXPECT_EQ(d.settings.weights, WeightMethod::Polynomial);
  EXPECT_FALSE(d.strict);
  EXPECT_GT(d.settings.target_threshold, 0.0);  // targets are removed unless asked not to
}

TEST(SequenceCli, SyntheticOptionsDescribeTheSky) {
  const SequenceOptions o = parse({"--synthetic", "--out-dir", "o", "--frames", "30", "--size", "96x64", "--seed",
                                   "5", "--noise", "0.01", "--jitter", "1.5", "--target-brightness", "6"});
  EXPECT_TRUE(o.synthetic);
  EXPECT_EQ(o.synthetic_spec.frames, 30);
  EXPECT_EQ(o.synthetic_spec.width, 96);
  EXPECT_EQ(o.synthetic_spec.height, 64);
  EXPECT_EQ(o.synthetic_spec.seed, 5u);
  EXPECT_DOUBLE_EQ(o.synthetic_spec.noise, 0.01);
  EXPECT_DOUBLE_EQ(o.synthetic_spec.jitter, 1.5);
  EXPECT_DOUBLE_EQ(o.synthetic_spec.target_brightness, 6);
}

TEST(SequenceCli, BadCommandLinesNameTheProblem) {
  EXPECT_NE(usage_error({"--out-dir", "o"}).find("no input"), std::string::npos);
  EXPECT_NE(usage_error({"in"}).find("--out-dir"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--history", "0"}).find("--history"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--history", "65"}).find("--history"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--gamma", "-1"}).find("--gamma"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--gamma", "nan"}).find("--gamma"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--degree", "5"}).find("--degree"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--method", "fft"}).find("--sigma"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--frames", "10"}).find("--synthetic"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--synthetic", "--out-dir", "o"}).find("no INPUT"), std::string::npos);
  EXPECT_NE(usage_error({"--synthetic", "--out-dir", "o", "--jitter", "40"}).find("jitter"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--backend", "tpu"}).find("--backend"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--weights", "pca"}).find("--weights"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--min-match", "-1"}).find("--min-match"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--max-residual", "0.5"}).find("--max-residual"), std::string::npos);
  EXPECT_NE(usage_error({"in", "--out-dir", "o", "--target-threshold", "1"}).find("--target-threshold"),
            std::string::npos);
}

TEST(SequenceCli, FramesCsvSaysWhatBecameOfEachFrame) {
  seq::ShiftRecord used;
  used.segment = 0;
  used.match = 15.5f;
  used.residual = 0.0011f;
  used.residual_ratio = 1.02f;
  used.tail = 0.001f;
  seq::ShiftRecord cut = used;
  cut.segment = 1;
  const std::string csv = frames_csv({{"a.png", FrameVerdict::Reference, used, {}},
                                      {"b,1.png", FrameVerdict::Used, used, {}},
                                      {"c.png", std::nullopt, {}, "unreadable"},
                                      {"d.png", FrameVerdict::SegmentStart, cut, {}}});
  EXPECT_EQ(csv,
            "frame,name,verdict,segment,match,residual,residual_ratio,tail\n"
            "0,a.png,reference,1,15.500,0.0011,1.0200,0.001000\n"
            "1,\"b,1.png\",used,1,15.500,0.0011,1.0200,0.001000\n"
            "2,c.png,unreadable,,,,,\n"
            "3,d.png,scene-cut,2,15.500,0.0011,1.0200,0.001000\n");
}

TEST(SequenceCli, ShiftsCsvHasOneRowPerFrameAndNanWhereUnknown) {
  const std::string csv = shifts_csv({{0, 0}, {0.25, -1.5}, {std::nan(""), std::nan("")}});
  EXPECT_EQ(csv, "frame,dx,dy\n0,0.000000,0.000000\n1,0.250000,-1.500000\n2,nan,nan\n");
}

TEST(SequenceCli, WhitenedPreviewsPutZeroAtMidGreyAndFourDeviationsAtTheEnds) {
  ImageF32 w(9, 9);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 9; ++x) w.at(x, y) = (x + y) % 2 ? 0.01f : -0.01f;  // robust deviation 0.0148
  w.at(1, 1) = 1.0f;
  w.at(2, 2) = -1.0f;
  w.at(4, 4) = 0.0f;
  const ImageRgba8 p = whitened_preview(w);
  EXPECT_NEAR(p.at(4, 4).r, 128, 1);
  EXPECT_EQ(p.at(1, 1).r, 255);
  EXPECT_EQ(p.at(2, 2).r, 0);
  EXPECT_NEAR(p.at(0, 1).r, 128 + 127.5 * 0.01 / (4 * 1.4826 * 0.01), 1);
  EXPECT_EQ(whitened_preview(ImageF32(4, 4, 0.0f)).at(2, 2).r, 128);  // not whitened yet: all mid grey
}

}  // namespace
}  // namespace gausslab
