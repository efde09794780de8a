#pragma once
// Private to render/: compiling and linking a GLSL program with readable errors.
#include <string>

#include "gl_util.hpp"

namespace gausslab {

class ShaderProgram {
 public:
  // Compiles and links; throws GlError with the compiler's log and the shader's name.
  ShaderProgram(const std::string& name, const char* vertex_source, const char* fragment_source);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  GLuint id() const { return program_; }
  // Location of a uniform; throws GlError if the program has no active uniform of that name
  // (a typo here would otherwise silently draw wrong).
  GLint uniform(const char* name) const;

 private:
  std::string name_;
  GLuint program_ = 0;
};

}  // namespace gausslab
