// The three functions the viewer's option parser uses from the render and CUDA layers, for the
// fuzz target only: linking those layers would bring OpenGL and the CUDA runtime into a program
// that parses arguments. The names and values are the real ones (render/src/image_renderer.cpp,
// render/src/result_pipeline.cpp); the registry's list only appears in --help.
#include <optional>
#include <string>
#include <string_view>

#include "gausslab/render/image_renderer.hpp"
#include "gausslab/render/result_pipeline.hpp"

namespace gausslab {

const char* to_string(CompareMode mode) {
  static const char* const names[] = {"a", "b", "split", "diff"};
  const int i = static_cast<int>(mode);
  return i >= 0 && i < static_cast<int>(CompareMode::Count) ? names[i] : "?";
}

std::optional<OutputPath> output_path_from_string(std::string_view name) {
  if (name == "interop") return OutputPath::Interop;
  if (name == "staging") return OutputPath::Staging;
  if (name == "cpu") return OutputPath::Cpu;
  return std::nullopt;
}

std::string method_id_list() { return "(the registered methods)"; }

}  // namespace gausslab
