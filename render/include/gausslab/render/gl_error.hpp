#pragma once
// Errors of the OpenGL side: context creation, shaders, framebuffers, GL calls.
#include <stdexcept>

namespace gausslab {

// what() names the step that failed and, where one helps, what to do about it.
class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gausslab
