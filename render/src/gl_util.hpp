#pragma once
// Private to render/: the GL loader and error checks.
#include <glad/gl.h>

#include <string>

namespace gausslab {

// "GL_INVALID_OPERATION" etc.
const char* gl_error_name(GLenum error);
// Throws GlError naming `step` if GL reports an error (and drains the error queue). Used after
// set-up steps and readbacks, not in the per-frame path, where glGetError would cost a round trip
// on some drivers.
void gl_check(const char* step);
// The same, returning the message instead of throwing ("" when no error).
std::string gl_error_message(const char* step);

}  // namespace gausslab
