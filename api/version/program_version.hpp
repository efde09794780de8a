#pragma once
// --version for gausslab's programs, and the text behind gausslab::build_report(): the version and
// commit (cuda/build_id.cmake), the CUDA runtime and driver, and the GPU or why there is none.
#include <string>

namespace gausslab {

// "0.1.0+1a2b3c4d5e6f" (GAUSSLAB_BUILD_ID).
std::string build_id();

// Lines of "key: value": gausslab, commit, CUDA runtime, CUDA driver, GPU.
std::string build_report_text();

// True when the command line asks for --version (anywhere, as --help is taken).
bool version_requested(int argc, const char* const* argv);

// "<program> (gausslab) 0.1.0+1a2b3c4d5e6f" and the report below it: what --version prints (its first
// line is what help2man reads).
std::string version_text(const std::string& program);

}  // namespace gausslab
