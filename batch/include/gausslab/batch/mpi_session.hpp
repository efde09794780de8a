#pragma once
// The MPI world this process belongs to: ranks, the ranks on this host, and the few collective
// operations the batch needs. Built without MPI, or started without a launcher (mpirun, srun),
// it is a world of one and every operation is local; only mpi_session.cpp includes <mpi.h>.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gausslab {

class MpiSession {
 public:
  // Initialises MPI (threads: funneled; only the thread that made the session calls MPI) when the
  // program was built with MPI and started by an MPI launcher; otherwise a world of one.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();  // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  static bool built_with_mpi();
  // "Open MPI v4.1.4, ..." or "none (built without MPI)".
  static std::string library_version();

  bool active() const { return size_ > 1 || initialised_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // The ranks on this host (by shared memory), and this one's place among them.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host_name() const { return host_; }

  // Root's bytes to every rank.
  void broadcast(std::string& bytes, int root = 0);
  void broadcast(int& value, int root = 0);
  int max_over_ranks(int value);
  // Every rank's bytes, at the root (empty elsewhere).
  std::vector<std::string> gather(const std::string& bytes, int root = 0);
  void barrier();
  // Ends every rank at once (MPI_Abort): for an error in the middle of collective work, where the
  // other ranks would otherwise wait for this one forever.
  [[noreturn]] void abort(int status);

  // Small messages to the root while the ranks work (progress). send_to_root never blocks: the
  // message is buffered until delivered; receive_at_root returns false when none is waiting.
  void send_to_root(const std::string& message);
  bool receive_at_root(std::string& message, int& source);
  // Waits until every message sent has been delivered.
  void complete_sends();

  // Rows of `row_bytes` each. scatter_rows: from the root's `send` (rows at displacements) into
  // each rank's `receive` (counts[rank] rows); gather_rows the reverse; at the root `in_place`
  // means its own rows already sit in `receive`/`send`. Sent in rounds of at most 256 MiB per
  // rank, so that no message exceeds what MPI's int counts and its transports handle.
  void scatter_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                    std::size_t row_bytes, void* receive, int root = 0);
  void gather_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                   std::size_t row_bytes, void* receive, bool root_in_place, int root = 0);

 private:
  struct Pending;
  bool initialised_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::string host_;
  std::vector<std::unique_ptr<Pending>> pending_;
};

// True when an MPI launcher started this process (its environment says so).
bool launched_by_mpi();

}  // namespace gausslab
