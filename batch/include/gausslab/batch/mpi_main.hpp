#pragma once
// The one MPI start of the programs that can run under mpirun (gausslab-filter, gausslab-bench):
// the session made before anything else, the errors that escape the program caught once.
#include <functional>

#include "gausslab/batch/mpi_session.hpp"

namespace gausslab {

struct MpiExitCodes {
  int failure = 1;  // MPI could not start, or an error escaped the program
  int usage = 2;    // a UsageError escaped it
};

// Starts the MPI session (a world of one without a launcher) and returns run(argc, argv, session).
// A UsageError is the same on every rank (the command line is), so rank 0 alone prints it, with
// "(<program> --help shows the usage)"; any other error is printed by the rank that met it,
// naming the rank when there are several, and ends every rank (the others may be waiting for
// this one in a collective operation).
int run_with_mpi(const char* program, int argc, char** argv, const MpiExitCodes& codes,
                 const std::function<int(int argc, char** argv, MpiSession& mpi)>& run);

}  // namespace gausslab
