#pragma once
// Where gausslab-bench ran: date, command line, git commit, CPU and GPU, for the results' header.
#include <string>

#include "bench_results.hpp"

namespace gausslab {

// Everything in BenchHeader except the timing notes, the copy bandwidth and the total time.
BenchHeader collect_environment(int argc, const char* const* argv);

// `arg` as one shell word: unchanged when it holds only safe characters, else in single quotes.
std::string shell_quote(const std::string& arg);

// The arguments joined into one line a shell would run again (quoted where needed).
std::string command_line(int argc, const char* const* argv);

}  // namespace gausslab
