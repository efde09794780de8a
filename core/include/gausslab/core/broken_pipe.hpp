#pragma once
// A program whose output goes to a pipe that closes (gausslab-filter DIR --out-dir O 2>&1 | head -2)
// used to die of SIGPIPE in the middle of a write, without a word. With this handler it stops at
// its next write: the temporary files of outputs not finished are removed (as on SIGINT: every
// file already written stays whole), a line says why on stderr (when stderr is the closed pipe
// itself, no one can read it, but the exit status still says it), and it exits with the status
// given.
namespace gausslab {

// Installs the SIGPIPE handler; `program` names the program in the message (kept, at most 63
// bytes). Call once, early in main.
void stop_on_broken_pipe(const char* program, int exit_status);

}  // namespace gausslab
