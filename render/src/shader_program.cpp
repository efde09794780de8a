#include "shader_program.hpp"

#include <vector>

#include "gausslab/render/gl_error.hpp"

namespace gausslab {

namespace {

std::string shader_log(GLuint shader) {
  GLint length = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(static_cast<std::size_t>(std::max(length, 1)));
  glGetShaderInfoLog(shader, static_cast<GLsizei>(log.size()), nullptr, log.data());
  return log.data();
}

GLuint compile(const std::string& name, GLenum stage, const char* source) {
  const GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = shader_log(shader);
    glDeleteShader(shader);
    throw GlError("the " + std::string(stage == GL_VERTEX_SHADER ? "vertex" : "fragment") + " shader of " + name +
                  " does not compile on this driver:\n" + log);
  }
  return shader;
}

}  // namespace

ShaderProgram::ShaderProgram(const std::string& name, const char* vertex_source, const char* fragment_source)
    : name_(name) {
  const GLuint vertex = compile(name, GL_VERTEX_SHADER, vertex_source);
  GLuint fragment = 0;
  try {
    fragment = compile(name, GL_FRAGMENT_SHADER, fragment_source);
  } catch (...) {
    glDeleteShader(vertex);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vertex);
  glAttachShader(program_, fragment);
  glLinkProgram(program_);
  glDetachShader(program_, vertex);
  glDetachShader(program_, fragment);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = GL_FALSE;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint length = 0;
    glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(std::max(length, 1)));
    glGetProgramInfoLog(program_, static_cast<GLsizei>(log.size()), nullptr, log.data());
    glDeleteProgram(program_);
    throw GlError("the shader program " + name + " does not link:\n" + std::string(log.data()));
  }
}

ShaderProgram::~ShaderProgram() {
  if (program_) glDeleteProgram(program_);
}

GLint ShaderProgram::uniform(const char* name) const {
  const GLint location = glGetUniformLocation(program_, name);
  if (location < 0) throw GlError("the shader program " + name_ + " has no active uniform '" + name + "'");
  return location;
}

}  // namespace gausslab
