#pragma once
// The comparison tables of issue 13's techniques, from the rows of their sections (--signals,
// --lut, --unrolled, --pooling): each answers one question, next to the full rows in results.md.
#include <string>
#include <vector>

#include "bench_results.hpp"

namespace gausslab {

// "Image size × kernel", "1D signals", ...: the heading of a section's full table.
std::string section_title(const std::string& section);

// The tables of the sections present in `rows` ("" when none):
//   1D signals: per length and radius, each method's ms, GB/s and % of copy, and the 70 % target
//     (tiled_1d at 2^26 samples, radius ≤ 20) met or not;
//   lookup table: per radius, lut_2d against naive_2d and shared_2d, and lut_2d's time over the
//     faster multiply kernel;
//   unrolled: per method, format and kernel, the compile-time kernel against the run-time loop;
//   pooling: per method, format and mode, the blur alone, fused and separate pooling.
std::string techniques_markdown(const BenchHeader& header, const std::vector<BenchRow>& rows);

}  // namespace gausslab
