// The world of one: gausslab built without MPI (or the launcher absent). Every collective is local.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "gausslab/batch/mpi_session.hpp"

namespace gausslab {

struct MpiSession::Pending {};

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

MpiSession::MpiSession(int*, char***) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host_ = name;
  // Started as one of several copies by mpirun: each would do the whole batch on its own.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(variable);
    if (value && std::atoi(value) > 1)
      throw std::runtime_error(std::string("mpirun started ") + value +
                               " copies, but this gausslab was built without MPI, so each would filter every "
                               "file; rebuild with Open MPI (libopenmpi-dev, openmpi-bin) or run one process");
  }
}
MpiSession::~MpiSession() = default;

bool MpiSession::built_with_mpi() { return false; }
std::string MpiSession::library_version() { return "none (built without MPI)"; }

void MpiSession::broadcast(std::string&, int) {}
void MpiSession::broadcast(int&, int) {}
int MpiSession::max_over_ranks(int value) { return value; }
std::vector<std::string> MpiSession::gather(const std::string& bytes, int) { return {bytes}; }
void MpiSession::barrier() {}
void MpiSession::abort(int status) { std::exit(status); }
void MpiSession::send_to_root(const std::string&) {}
bool MpiSession::receive_at_root(std::string&, int&) { return false; }
void MpiSession::complete_sends() {}

void MpiSession::scatter_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                              std::size_t row_bytes, void* receive, int) {
  if (send != receive && !counts.empty() && counts[0] > 0)
    std::memmove(receive, static_cast<const char*>(send) + static_cast<std::size_t>(displacements[0]) * row_bytes,
                 static_cast<std::size_t>(counts[0]) * row_bytes);
}

void MpiSession::gather_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                             std::size_t row_bytes, void* receive, bool root_in_place, int) {
  if (!root_in_place && !counts.empty() && counts[0] > 0)
    std::memmove(static_cast<char*>(receive) + static_cast<std::size_t>(displacements[0]) * row_bytes, send,
                 static_cast<std::size_t>(counts[0]) * row_bytes);
}

}  // namespace gausslab
