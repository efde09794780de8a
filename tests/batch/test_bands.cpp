// Images in bands: the band result must equal the single pass byte for byte, for every border
// mode, with halos from the whole image (also where the radius exceeds a band or the image), and
// also when the rows are first cut out per rank as the MPI scatter does.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "gausslab/batch/band_plan.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {
namespace {

ImageRgba8 single_pass(const std::string& method_id, const ImageRgba8& image, const FilterParams& params) {
  const std::unique_ptr<Method> method = find_method(method_id)->create();
  return run_on_host(*method, image, params);
}

ImageRgba8 in_bands(const std::string& method_id, const ImageRgba8& image, const FilterParams& params, int bands) {
  const std::unique_ptr<Method> method = find_method(method_id)->create();
  ImageRgba8 out(image.width(), image.height());
  const ExtendedRows rows(image.view(), 0, image.height(), params.border);
  filter_bands_on_host(*method, params, rows, split_rows(image.height(), band_halo(params), bands), out.view(), 0);
  return out;
}

// What a rank does under MPI: its rows with their halos cut out of the whole image (the border's
// rows beyond its edges), then filtered in sub-bands of at most `sub_rows` rows.
ImageRgba8 as_ranks(const std::string& method_id, const ImageRgba8& image, const FilterParams& params, int ranks,
                    int sub_rows) {
  const int halo = band_halo(params), width = image.width(), height = image.height();
  const std::size_t row_bytes = image.pitch_bytes();
  const ExtendedRows whole(image.view(), 0, height, params.border);
  ImageRgba8 out(width, height);
  const std::unique_ptr<Method> method = find_method(method_id)->create();
  for (const Band& band : split_rows(height, halo, ranks).bands) {
    if (band.rows == 0) continue;
    ImageRgba8 window(width, band.rows + 2 * halo);
    whole.copy_rows(band.first_row - halo, band.first_row + band.rows + halo, window.view());
    const ExtendedRows mine(window.view(), band.first_row - halo, height, params.border);
    ImageRgba8 result(width, band.rows);
    BandPlan pieces = bands_of_at_most(band.rows, halo, sub_rows);
    for (Band& piece : pieces.bands) piece.first_row += band.first_row;
    filter_bands_on_host(*method, params, mine, pieces, result.view(), band.first_row);
    for (int y = 0; y < band.rows; ++y)
      std::memcpy(&out.at(0, band.first_row + y), &result.at(0, y), row_bytes);
  }
  return out;
}

FilterParams params_with(BorderMode border, int radius) {
  FilterParams params;
  params.sigma = std::max(0.5, radius / 3.0);
  params.fixed_radius = radius;
  params.border = border;
  return params;
}

TEST(Bands, SplitRowsCoversTheImageInNearlyEqualBands) {
  const BandPlan plan = split_rows(10, 2, 3);
  ASSERT_EQ(plan.bands.size(), 3u);
  EXPECT_EQ(plan.bands[0].rows, 4);
  EXPECT_EQ(plan.bands[1].first_row, 4);
  EXPECT_EQ(plan.bands[2].first_row + plan.bands[2].rows, 10);
  EXPECT_EQ(plan.halo, 2);
  const BandPlan more = split_rows(2, 0, 4);  // more bands than rows: the last are empty
  EXPECT_EQ(more.bands[2].rows, 0);
  EXPECT_EQ(more.bands[3].rows, 0);
  EXPECT_EQ(bands_of_at_most(10, 0, 3).bands.size(), 4u);
  EXPECT_THROW(split_rows(10, 0, 0), std::invalid_argument);
}

TEST(Bands, ExtendedRowsFollowTheBorderRuleOfTheWholeImage) {
  const ImageRgba8 image = make_random_rgba8(3, 5, 7);
  for (BorderMode border : kAllBorderModes) {
    const ExtendedRows rows(image.view(), 0, 5, border);
    for (int y = -12; y < 17; ++y) {
      const int source = border_index(y, 5, border);
      const auto* row = static_cast<const Rgba8*>(rows.row(y));
      for (int x = 0; x < 3; ++x)
        EXPECT_EQ(row[x], source < 0 ? Rgba8{} : image.at(x, source)) << to_string(border) << " row " << y;
    }
  }
  // A window holds only its rows: asking beyond them is a programming error, not a silent border.
  const ExtendedRows window(ConstImageView(image.data(), 3, 2, image.pitch_bytes(), PixelFormat::Rgba8), 10, 40,
                            BorderMode::Reflect);
  EXPECT_NO_THROW(window.row(11));
  EXPECT_THROW(window.row(12), std::logic_error);
  EXPECT_THROW(window.row(9), std::logic_error);
}

TEST(Bands, MatchTheSinglePassByteForByteInEveryBorderMode) {
  struct Size {
    int width, height;
  };
  for (const Size size : {Size{1, 1}, Size{7, 5}, Size{13, 17}, Size{61, 127}, Size{200, 3}}) {
    const ImageRgba8 image = make_random_rgba8(size.width, size.height, 11u + size.width);
    for (BorderMode border : kAllBorderModes) {
      for (int radius : {0, 1, 3, 20}) {  // 20: beyond a band, and beyond most of these heights
        const FilterParams params = params_with(border, radius);
        const ImageRgba8 expected = single_pass("cpu_separable", image, params);
        for (int bands : {2, 3, 7, size.height}) {
          const ImageRgba8 got = in_bands("cpu_separable", image, params, bands);
          ASSERT_EQ(got.pixels(), expected.pixels()) << size.width << "×" << size.height << " " << to_string(border)
                                                     << " radius " << radius << " in " << bands << " bands";
        }
      }
    }
  }
}

TEST(Bands, SpreadOverRanksAndSubBandedMatchTheSinglePass) {
  const ImageRgba8 image = make_random_rgba8(37, 53, 5);
  for (const char* method : {"cpu_separable", "cpu_openmp"}) {
    for (BorderMode border : kAllBorderModes) {
      for (int radius : {2, 9, 60}) {
        const FilterParams params = params_with(border, radius);
        const ImageRgba8 expected = single_pass(method, image, params);
        for (int ranks : {2, 3, 5}) {
          ASSERT_EQ(as_ranks(method, image, params, ranks, 4).pixels(), expected.pixels())
              << method << " " << to_string(border) << " radius " << radius << " over " << ranks << " ranks";
        }
      }
    }
  }
}

TEST(Bands, OnlyTheFirWindowMethodsPromiseByteIdenticalBands) {
  // The methods whose output reaches past the radius, or depends on where a tile or transform falls,
  // must not promise the single pass's bytes in bands (the batch engine then says so in its notes).
  const std::set<std::string> approximate_in_bands = {"fft", "recursive", "recursive_tiled", "multires",
                                                      "separable_mma", "separable_tf32", "auto", "auto_exact"};
  int promising = 0;
  for (const MethodEntry& entry : method_registry()) {
    const bool promises = bands_match_single_pass(entry.info.id);
    EXPECT_EQ(promises, entry.info.same_bytes_in_bands) << entry.info.id;
    if (approximate_in_bands.count(entry.info.id) > 0) {
      EXPECT_FALSE(promises) << entry.info.id;
    }
    promising += promises;
  }
  EXPECT_GE(promising, 8);  // the two CPU filters and the GPU FIR window methods
  EXPECT_FALSE(bands_match_single_pass("no_such_method"));
}

TEST(Bands, EveryCpuMethodThatPromisesSameBytesKeepsItInThinBands) {
  const ImageRgba8 image = make_random_rgba8(41, 67, 11);
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.backend != Backend::Cpu || !entry.info.same_bytes_in_bands) continue;
    for (BorderMode border : kAllBorderModes) {
      const FilterParams params = params_with(border, 9);
      ASSERT_EQ(as_ranks(entry.info.id, image, params, 1, 7).pixels(), single_pass(entry.info.id, image, params).pixels())
          << entry.info.id << " " << to_string(border) << " in bands of 7 rows, radius 9";
    }
  }
}

}  // namespace
}  // namespace gausslab
