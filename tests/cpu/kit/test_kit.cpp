// The CPU-model test kit itself: checks that cannot fail prove nothing.
#include <gtest/gtest.h>

#include <vector>

#include "kit/checked_shared.hpp"
#include "kit/model_images.hpp"
#include "kit/plain_separable.hpp"

namespace gausslab::test {
namespace {

TEST(ModelKit, CheckedSharedCatchesRacesMissingFillsAndOutOfRangeSlots) {
  CheckedShared<float> shared(4, "test");
  shared.begin_fill();
  shared.access().store(1, 2.0f);
  EXPECT_EQ(shared.filled(), 1u);
  EXPECT_THROW(shared.access().store(1, 3.0f), ModelError);         // race
  EXPECT_THROW(shared.access().store(4, 3.0f), ModelError);         // outside
  EXPECT_THROW(shared.access().store(-1, 3.0f), ModelError);        // outside
  EXPECT_THROW(static_cast<void>(shared.access()[1]), ModelError);  // read while filling
  shared.begin_read();
  EXPECT_EQ(shared.access()[1], 2.0f);
  EXPECT_EQ(shared.access().load(1), 2.0f);
  EXPECT_THROW(static_cast<void>(shared.access()[0]), ModelError);  // never filled
  EXPECT_THROW(shared.access().store(0, 1.0f), ModelError);         // write while reading
  shared.begin_fill();                                              // the next chunk
  EXPECT_EQ(shared.filled(), 0u);
  shared.access().store(1, 5.0f);                                   // the same slot again: a new phase
  shared.begin_read();
  EXPECT_EQ(shared.access()[1], 5.0f);
}

TEST(ModelKit, WrittenOnceNamesTheFirstOutputThatWasNot) {
  EXPECT_NO_THROW(check_written_once({1, 1, 1, 1}, 2, "pass"));
  try {
    check_written_once({1, 1, 2, 1}, 2, "pass");
    ADD_FAILURE() << "an output written twice was not caught";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("output (0, 1) written 2 times"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_written_once({1, 0}, 2, "pass"), ModelError);
}

TEST(ModelKit, FirstDifferenceIsBitForBit) {
  ImageF32 a(3, 2, 1.0f), b(3, 2, 1.0f);
  EXPECT_EQ(first_difference(a, b), "");
  a.at(2, 1) = 0.0f;
  b.at(2, 1) = -0.0f;  // equal as numbers, not as results
  EXPECT_NE(first_difference(a, b).find("pixel (2, 1)"), std::string::npos);
  ImageRgba8 c(2, 2, Rgba8{1, 2, 3, 4}), d(2, 2, Rgba8{1, 2, 3, 4});
  EXPECT_EQ(first_difference(c, d), "");
  d.at(1, 0).a = 5;
  EXPECT_NE(first_difference(c, d).find("pixel (1, 0)"), std::string::npos);
  EXPECT_NE(first_difference(c, ImageRgba8(3, 2)).find("sizes differ"), std::string::npos);
}

TEST(ModelKit, StorageRoundTripsAndThePlainLoopKeepsAnImpulseSymmetric) {
  const ImageRgba8 image = random_image<Rgba8>(5, 3, 9);
  EXPECT_EQ(first_difference(from_storage<Rgba8>(to_storage(image), 5, 3), image), "");
  ImageF32 impulse(9, 9, 0.0f);
  impulse.at(4, 4) = 1.0f;
  FilterParams params;
  params.sigma = 1.0;
  const ImageF32 out = plain_separable(impulse, params);
  EXPECT_GT(out.at(4, 4), out.at(3, 4));
  EXPECT_EQ(out.at(3, 4), out.at(5, 4));
  EXPECT_EQ(out.at(4, 3), out.at(3, 4));  // rows then columns: the same weights both ways
}

}  // namespace
}  // namespace gausslab::test
