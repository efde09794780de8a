#pragma once
// The GLSL files of shaders/, embedded at build time (render/CMakeLists.txt), so the binary runs
// from any folder.
#include <cstddef>

namespace gausslab::embedded {
extern const unsigned char image_view_vert[];
extern const std::size_t image_view_vert_size;
extern const unsigned char image_view_frag[];
extern const std::size_t image_view_frag_size;
extern const unsigned char image_view_plain_frag[];
extern const std::size_t image_view_plain_frag_size;
}  // namespace gausslab::embedded
