#include "gausslab/batch/mpi_main.hpp"

#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "gausslab/core/cli_args.hpp"

namespace gausslab {

int run_with_mpi(const char* program, int argc, char** argv, const MpiExitCodes& codes,
                 const std::function<int(int argc, char** argv, MpiSession& mpi)>& run) {
  std::unique_ptr<MpiSession> mpi;
  try {
    mpi = std::make_unique<MpiSession>(&argc, &argv);
  } catch (const std::exception& error) {
    std::cerr << program << ": MPI could not start: " << error.what() << '\n';
    return codes.failure;
  }
  try {
    return run(argc, argv, *mpi);
  } catch (const UsageError& error) {
    if (mpi->root()) std::cerr << program << ": " << error.what() << "\n(" << program << " --help shows the usage)\n";
    return codes.usage;
  } catch (const std::exception& error) {
    const std::string rank = mpi->size() > 1 ? "rank " + std::to_string(mpi->rank()) + ": " : "";
    std::cerr << program << ": " << rank << error.what() << '\n';
    if (mpi->size() > 1) mpi->abort(codes.failure);
    return codes.failure;
  }
}

}  // namespace gausslab
