// The SIGPIPE handler: async-signal-safe calls only (unlink through the pending-files list, write, _exit).
#include "gausslab/core/broken_pipe.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "gausslab/core/atomic_file.hpp"

namespace gausslab {

namespace {

char g_message[256] = {};
std::size_t g_message_bytes = 0;
int g_exit_status = 1;

extern "C" void on_broken_pipe(int) {
  remove_pending_temporary_files();
  // SIGPIPE is blocked while its handler runs: writing to a closed stderr fails with EPIPE instead.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, g_message, g_message_bytes);
  ::_exit(g_exit_status);
}

}  // namespace

void stop_on_broken_pipe(const char* program, int exit_status) {
  const char* const why =
      ": the pipe that the output goes to was closed (its reader ended); stopping: the files written so far are "
      "complete, the others were not written\n";
  g_message_bytes = std::strlen(program) < 64 ? std::strlen(program) : 63;
  std::memcpy(g_message, program, g_message_bytes);
  const std::size_t why_bytes = std::min(std::strlen(why), sizeof(g_message) - g_message_bytes);
  std::memcpy(g_message + g_message_bytes, why, why_bytes);
  g_message_bytes += why_bytes;
  g_exit_status = exit_status;
  struct sigaction action {};
  action.sa_handler = on_broken_pipe;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

}  // namespace gausslab
