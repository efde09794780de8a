#include <string>
#include <vector>

#include "gausslab/cuda/registry.hpp"
#include "internal_names.hpp"
#include "gausslab/gausslab.hpp"
#include "api_conversions.hpp"

namespace gausslab::v1 {

std::vector<MethodDescription> methods() {
  std::vector<MethodDescription> list;
  for (const MethodEntry& entry : method_registry()) {
    if (entry.info.id == "auto" || entry.info.id == "auto_exact") continue;  // choosers: FilterOptions::method "auto"
    MethodDescription d;
    d.id = entry.info.id;
    d.label = entry.info.label;
    d.summary = entry.info.summary;
    d.accuracy = entry.info.accuracy;
    d.gpu = entry.info.backend == Backend::Cuda;
    d.unavailable = method_unavailable_reason(entry);
    d.available = d.unavailable.empty();
    d.rows_only = entry.info.filters_along_x_only;
    for (int f = 0; f < kPixelFormatCount; ++f)
      if (entry.info.formats.contains(static_cast<PixelFormat>(f))) d.pixel_types.push_back(public_pixel(static_cast<PixelFormat>(f)));
    d.kernels = to_string(entry.info.kernels);
    d.all_roundings = entry.info.all_roundings || entry.info.backend == Backend::Cpu;
    list.push_back(std::move(d));
  }
  return list;
}

}  // namespace gausslab::v1
