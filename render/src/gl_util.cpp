#include "gl_util.hpp"

#include "gausslab/render/gl_error.hpp"

namespace gausslab {

const char* gl_error_name(GLenum error) {
  switch (error) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY (the image may be too large for this GPU)";
    default: return "an unknown OpenGL error";
  }
}

std::string gl_error_message(const char* step) {
  std::string message;
  // A lost context can report errors forever: read a bounded number.
  for (int i = 0; i < 16; ++i) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) break;
    if (message.empty())
      message = std::string("OpenGL error during ") + step + ": " + gl_error_name(error);
    else
      message += std::string(", ") + gl_error_name(error);
  }
  return message;
}

void gl_check(const char* step) {
  if (std::string message = gl_error_message(step); !message.empty()) throw GlError(message);
}

}  // namespace gausslab
