#pragma once
// A 2D window sum cut into bands of kernel rows, so that one output's sum can be spread over several
// launches. naive_2d and shared_2d already sum each output band by band (naive_2d: bands of
// summation_chunk kernel rows; shared_2d: its rows of chunks) and add each band's sum to a running
// total; a launch that sums only the bands [first, end) starts from the total the launch before it
// left in `partial` and leaves its own there, so the total meets the same additions in the same
// order: the last launch writes the same bytes as a single one. A sliced run (render/sliced_run.hpp)
// uses it where one block's whole window would take longer than a frame's share: at radius 128 a
// shared_2d tile took 3.3-3.9 ms on an H100 whatever its size, as one block sums 257² taps per
// output.
#include <climits>
#include <cstddef>

namespace gausslab {

// How the prepared problem's window sum is cut (HaloReads::window_bands).
struct WindowBands {
  int count = 1;              // bands of kernel rows
  int rows_per_band = 0;      // kernel rows in each band (the last may have fewer)
  int taps = 0;               // 2r + 1: taps along a kernel row
  int partial_bytes_per_pixel = 0;  // of the running totals a split run keeps (float or float4)
};

// The bands one launch sums. The default, every band with no partial totals, is the plain run.
struct BandRange {
  int first = 0;
  int end = INT_MAX;  // past the last band summed (clamped to the count)
  // One running total per output pixel (WindowBands::partial_bytes_per_pixel each, rows
  // pitch_bytes apart): read when first > 0, written instead of the output when end < count.
  void* partial = nullptr;
  std::size_t partial_pitch_bytes = 0;
};

}  // namespace gausslab
