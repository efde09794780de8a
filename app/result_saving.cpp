#include "result_saving.hpp"

#include <filesystem>

#include "gausslab/core/image_io.hpp"

namespace gausslab {

std::string save_under_free_name(const ImageRgba8& image, const std::string& name) {
  for (int attempt = 0; attempt < 8; ++attempt) {  // another program may take a free name first
    const std::string path = first_free_path(name);
    try {
      save_image(path, image, 4, Overwrite::Never);
      std::error_code ignored;
      return "saved " + std::filesystem::absolute(path, ignored).string();
    } catch (const ImageSaveError& error) {
      std::error_code ignored;
      if (std::filesystem::exists(path, ignored)) continue;
      return std::string("could not save: ") + error.what();
    }
  }
  return "could not save: no free file name next to " + name;
}

}  // namespace gausslab
