#pragma once
// Images in horizontal bands. A band is a run of whole rows; it is filtered together with `halo`
// rows above and below (the radius), taken from the WHOLE image with its border rule, so that each
// of the band's rows sees exactly the rows a single pass over the whole image would: the band's
// result is then the single pass's, byte for byte, for every method whose output at a pixel
// depends only on the pixels within the radius (every FIR method). The rows a band's halo reaches
// beyond the image (the first and last bands, or every band when the radius exceeds the height)
// are the border's: reflected, mirrored, repeated, wrapped rows of the whole image, or zeros.
#include <string>
#include <vector>

#include "gausslab/core/border.hpp"
#include "gausslab/core/filter_params.hpp"
#include "gausslab/core/image.hpp"
#include "gausslab/cuda/method.hpp"

namespace gausslab {

struct Band {
  int first_row = 0;  // the rows the band produces: [first_row, first_row + rows)
  int rows = 0;
};

struct BandPlan {
  int height = 0;  // of the whole image
  int halo = 0;    // rows above and below each band
  std::vector<Band> bands;
};

// `count` bands of nearly equal height (the first height % count are one row taller); bands are
// empty when count exceeds the height. Throws std::invalid_argument for count < 1.
BandPlan split_rows(int height, int halo, int count);
// Bands of at most max_rows rows each (at least one row).
BandPlan bands_of_at_most(int height, int halo, int max_rows);

// The halo a band needs for `params`: the radius.
int band_halo(const FilterParams& params);

// Whether a band result equals the single pass byte for byte with this method: its registry entry's
// MethodInfo::same_bytes_in_bands (the FIR window methods). False for an unknown id, for fft (its
// rounding depends on the transform size), the recursive filters (an IIR output depends on the whole
// column), multires (its pyramid reaches past the radius), separable_mma and separable_tf32
// (tile-aligned products) and auto (its choice need not be one of these): their bands agree within
// the method's accuracy bound.
bool bands_match_single_pass(const std::string& method_id);

// Rows of an image extended beyond its top and bottom by the border rule. `data` holds the global
// rows [first_row, first_row + data.height) of an image `image_height` rows high. A row inside
// that range is data's row. A row outside it is asked for only when `data` is the whole image
// (first_row 0, all rows): the border maps it onto a row of the image, or onto a zero row for
// 'constant'. Views are in host memory.
class ExtendedRows {
 public:
  ExtendedRows(const ConstImageView& data, int first_row, int image_height, BorderMode border);

  int width() const { return data_.width; }
  PixelFormat format() const { return data_.format; }
  std::size_t row_bytes() const { return static_cast<std::size_t>(data_.width) * bytes_per_pixel(data_.format); }
  const ConstImageView& data() const { return data_; }
  int first_row() const { return first_row_; }

  // Global row y; throws std::logic_error when y is outside data and data is not the whole image.
  const void* row(int y) const;
  // True when the global rows [y0, y1) are all rows of data, in order (one contiguous view).
  bool holds(int y0, int y1) const { return y0 >= first_row_ && y1 <= first_row_ + data_.height; }
  // A view of the global rows [y0, y1), which holds() must allow.
  ConstImageView view(int y0, int y1) const;
  // Copies the global rows [y0, y1) into dst's rows 0 .. y1 - y0 - 1 (host memory).
  void copy_rows(int y0, int y1, const ImageView& dst) const;

 private:
  ConstImageView data_;
  int first_row_ = 0;
  int image_height_ = 0;
  BorderMode border_;
  std::vector<unsigned char> zero_row_;
};

// Filters the bands of `plan` with a method that works in host memory (a CPU method): each band
// with its halo through the method, its rows into `dst`, whose row 0 is global row dst_first_row.
// Interior bands are read in place; only a band whose halo leaves `source`'s data is copied.
// Throws what the method throws (std::invalid_argument when it refuses a band).
void filter_bands_on_host(Method& method, const FilterParams& params, const ExtendedRows& source, const BandPlan& plan,
                          const ImageView& dst, int dst_first_row);

}  // namespace gausslab
