#include "gausslab/batch/band_plan.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gausslab/cuda/registry.hpp"

namespace gausslab {

BandPlan split_rows(int height, int halo, int count) {
  if (count < 1) throw std::invalid_argument("split_rows: the band count must be at least 1");
  BandPlan plan{height, halo, {}};
  const int base = height / count, taller = height % count;
  int row = 0;
  for (int i = 0; i < count; ++i) {
    const int rows = base + (i < taller ? 1 : 0);
    plan.bands.push_back({row, rows});
    row += rows;
  }
  return plan;
}

BandPlan bands_of_at_most(int height, int halo, int max_rows) {
  max_rows = std::max(1, max_rows);
  return split_rows(height, halo, std::max(1, (height + max_rows - 1) / max_rows));
}

int band_halo(const FilterParams& params) { return params.radius(); }

bool bands_match_single_pass(const std::string& method_id) {
  const MethodEntry* entry = find_method(method_id);
  return entry && entry->info.same_bytes_in_bands;
}

ExtendedRows::ExtendedRows(const ConstImageView& data, int first_row, int image_height, BorderMode border)
    : data_(data), first_row_(first_row), image_height_(image_height), border_(border) {
  if (border_ == BorderMode::Constant) zero_row_.assign(row_bytes(), 0);
}

const void* ExtendedRows::row(int y) const {
  if (y >= first_row_ && y < first_row_ + data_.height)
    return static_cast<const char*>(data_.data) + static_cast<std::size_t>(y - first_row_) * data_.pitch_bytes;
  if (first_row_ != 0 || data_.height != image_height_)
    throw std::logic_error("ExtendedRows: row " + std::to_string(y) + " is outside the rows held (" +
                           std::to_string(first_row_) + " to " + std::to_string(first_row_ + data_.height - 1) + ")");
  const int source = border_index(y, image_height_, border_);
  if (source < 0) return zero_row_.data();
  return static_cast<const char*>(data_.data) + static_cast<std::size_t>(source) * data_.pitch_bytes;
}

ConstImageView ExtendedRows::view(int y0, int y1) const {
  if (!holds(y0, y1)) throw std::logic_error("ExtendedRows::view: the rows are not all held");
  return {row(y0), data_.width, y1 - y0, data_.pitch_bytes, data_.format};
}

void ExtendedRows::copy_rows(int y0, int y1, const ImageView& dst) const {
  const std::size_t bytes = row_bytes();
  for (int y = y0; y < y1; ++y) std::memcpy(dst.row<unsigned char>(y - y0), row(y), bytes);
}

void filter_bands_on_host(Method& method, const FilterParams& params, const ExtendedRows& source, const BandPlan& plan,
                          const ImageView& dst, int dst_first_row) {
  const int width = source.width();
  const PixelFormat format = source.format();
  const std::size_t row_bytes = source.row_bytes();
  int largest = 0;
  for (const Band& band : plan.bands) largest = std::max(largest, band.rows);
  const std::size_t scratch_rows = static_cast<std::size_t>(largest) + 2 * static_cast<std::size_t>(plan.halo);
  std::vector<unsigned char> input, output(scratch_rows * row_bytes);

  for (const Band& band : plan.bands) {
    if (band.rows == 0) continue;
    const int y0 = band.first_row - plan.halo, y1 = band.first_row + band.rows + plan.halo;
    const int rows = y1 - y0;
    ConstImageView in;
    if (source.holds(y0, y1)) {
      in = source.view(y0, y1);
    } else {
      input.resize(scratch_rows * row_bytes);
      const ImageView copy{input.data(), width, rows, row_bytes, format};
      source.copy_rows(y0, y1, copy);
      in = copy;
    }
    const ImageView out{output.data(), width, rows, row_bytes, format};
    method.prepare(FilterProblem{width, rows, format, params});
    method.run(in, out, nullptr, nullptr);
    for (int y = 0; y < band.rows; ++y)
      std::memcpy(dst.row<unsigned char>(band.first_row + y - dst_first_row), out.row<unsigned char>(plan.halo + y),
                  row_bytes);
  }
}

}  // namespace gausslab
