#include "gausslab/core/method_info.hpp"

namespace gausslab {

std::string FormatSet::describe() const {
  if (*this == all()) return "every format";
  std::string list;
  for (int i = 0; i < kPixelFormatCount; ++i) {
    const auto f = static_cast<PixelFormat>(i);
    if (!contains(f)) continue;
    if (!list.empty()) list += ", ";
    list += to_string(f);
  }
  return list.empty() ? "no format" : list;
}

std::string format_refusal(const MethodInfo& info, PixelFormat format) {
  if (info.formats.contains(format)) return {};
  return info.id + " does not filter " + describe(format) + " (" + to_string(format) + ") images; it takes " +
         info.formats.describe() + " (gausslab-filter --list-methods shows which methods take which)";
}

const char* to_string(Backend backend) { return backend == Backend::Cpu ? "cpu" : "cuda"; }

std::string axes_refusal(const MethodInfo& info, FilterAxes axes) {
  if (axes == FilterAxes::Both || info.filters_along_x_only) return {};
  return info.id + " filters images along both axes only; a 1D signal (filtered along x only) needs a method that "
                   "filters along one axis (gausslab-filter --list-methods marks them '1D')";
}

}  // namespace gausslab
