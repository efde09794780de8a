// Fuzz target: gausslab-filter's command-line parser. Any argument list either parses or throws
// UsageError; a crash, another exception or undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>

#include "argv_from_bytes.hpp"
#include "filter_options.hpp"
#include "gausslab/core/cli_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gausslab::fuzz::FuzzArgv args(data, size, "gausslab-filter");
  try {
    const gausslab::FilterOptions options = gausslab::parse_filter_options(args.argc(), args.argv());
    if (options.mode == gausslab::FilterOptions::Mode::Filter && !gausslab::validate(options.params).empty())
      __builtin_trap();  // parsed parameters are always valid ones
  } catch (const gausslab::UsageError&) {
  }
  return 0;
}
