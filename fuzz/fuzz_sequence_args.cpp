// Fuzz target: gausslab-sequence's command-line parser. Any argument list either parses or throws
// UsageError; a crash, another exception or undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>

#include "argv_from_bytes.hpp"
#include "gausslab/core/cli_args.hpp"
#include "sequence_options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gausslab::fuzz::FuzzArgv args(data, size, "gausslab-sequence");
  try {
    gausslab::parse_sequence_options(args.argc(), args.argv());
  } catch (const gausslab::UsageError&) {
  }
  return 0;
}
