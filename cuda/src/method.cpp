#include "gausslab/cuda/method.hpp"

#include <stdexcept>

namespace gausslab {

void Method::check_views(const ConstImageView& src, const ImageView& dst) const {
  if (prepared_.width == 0) throw std::logic_error(info().id + ": run() without a successful prepare()");
  if (src.empty() || dst.empty()) throw std::invalid_argument(info().id + ": empty source or destination");
  if (src.width != prepared_.width || src.height != prepared_.height || src.format != prepared_.format ||
      dst.width != prepared_.width || dst.height != prepared_.height || dst.format != prepared_.format)
    throw std::invalid_argument(info().id + ": the images do not match the prepared size and format (" +
                                std::to_string(prepared_.width) + "×" + std::to_string(prepared_.height) + " " +
                                to_string(prepared_.format) + ")");
}

}  // namespace gausslab
