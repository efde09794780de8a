// Fuzz target: the viewer's command-line parser (app/viewer/viewer_options.cpp). Any argument list either
// parses or throws UsageError; a crash, another exception or undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>

#include "argv_from_bytes.hpp"
#include "gausslab/core/cli_args.hpp"
#include "viewer/viewer_options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gausslab::fuzz::FuzzArgv args(data, size, "gausslab");
  try {
    const gausslab::ViewerOptions options = gausslab::parse_viewer_args(args.argc(), args.argv());
    if (!options.help && !gausslab::validate(options.params).empty()) __builtin_trap();  // only valid parameters pass
  } catch (const gausslab::UsageError&) {
  }
  return 0;
}
