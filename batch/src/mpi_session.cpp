// The MPI world through Open MPI's C interface. Every call is made from the thread that created
// the session (MPI_THREAD_FUNNELED); the engine's threads hand progress to it through a queue.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "gausslab/batch/mpi_session.hpp"

namespace gausslab {

namespace {

constexpr int kProgressTag = 7101;
constexpr std::size_t kRoundBytes = std::size_t(256) << 20;

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw std::runtime_error(std::string(what) + " failed: " + text);
}

// A datatype of one row, freed on scope exit.
class RowType {
 public:
  explicit RowType(std::size_t row_bytes) {
    if (row_bytes > static_cast<std::size_t>(INT_MAX)) throw std::runtime_error("an image row is too long for MPI");
    check(MPI_Type_contiguous(static_cast<int>(row_bytes), MPI_BYTE, &type_), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~RowType() { MPI_Type_free(&type_); }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

int rows_per_round(std::size_t row_bytes) {
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(kRoundBytes / std::max<std::size_t>(1, row_bytes), INT_MAX / 2)));
}

// Calls move(counts, displacements, first) for each round of at most kRoundBytes per rank: the
// rows [first, first + counts[r]) of each rank's share, at displacements[r] in the root's image.
template <class Move>
void in_rounds(const std::vector<int>& counts, const std::vector<int>& displacements, std::size_t row_bytes,
               Move move) {
  const int per_round = rows_per_round(row_bytes);
  const int most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  std::vector<int> round_counts(counts.size()), round_displacements(counts.size());
  for (int first = 0; first < most; first += per_round) {
    for (std::size_t r = 0; r < counts.size(); ++r) {
      round_counts[r] = std::clamp(counts[r] - first, 0, per_round);
      round_displacements[r] = displacements[r] + first;
    }
    move(round_counts, round_displacements, first);
  }
}

}  // namespace

struct MpiSession::Pending {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
}

MpiSession::MpiSession(int* argc, char*** argv) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host_ = name;
  if (!launched_by_mpi()) return;  // alone: no MPI at all (and no need for its runtime files)
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  initialised_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
}

MpiSession::~MpiSession() {
  if (!initialised_) return;
  try {
    complete_sends();
  } catch (...) {
  }
  MPI_Finalize();
}

bool MpiSession::built_with_mpi() { return true; }

std::string MpiSession::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const std::size_t comma = version.find(',');
  return comma == std::string::npos ? version : version.substr(0, comma);
}

void MpiSession::broadcast(std::string& bytes, int root) {
  if (!initialised_) return;
  long long size = static_cast<long long>(bytes.size());
  check(MPI_Bcast(&size, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
  if (size > INT_MAX) throw std::runtime_error("a broadcast message is larger than 2 GiB");
  bytes.resize(static_cast<std::size_t>(size));
  if (size > 0) check(MPI_Bcast(bytes.data(), static_cast<int>(size), MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
}

void MpiSession::broadcast(int& value, int root) {
  if (initialised_) check(MPI_Bcast(&value, 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
}

int MpiSession::max_over_ranks(int value) {
  if (!initialised_) return value;
  int result = value;
  check(MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return result;
}

std::vector<std::string> MpiSession::gather(const std::string& bytes, int root) {
  if (!initialised_) return {bytes};
  int size = static_cast<int>(bytes.size());
  std::vector<int> sizes(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  check(MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
  std::string all;
  if (rank_ == root) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += sizes[static_cast<std::size_t>(r)];
    }
    if (total > INT_MAX) throw std::runtime_error("gathered reports exceed 2 GiB");
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Gatherv(bytes.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, root,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> parts;
  if (rank_ == root)
    for (int r = 0; r < size_; ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)])));
  return parts;
}

void MpiSession::barrier() {
  if (initialised_) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void MpiSession::abort(int status) {
  if (initialised_) MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);
}

void MpiSession::send_to_root(const std::string& message) {
  if (!initialised_ || rank_ == 0) return;
  // Forget the deliveries already done.
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [](const std::unique_ptr<Pending>& p) {
                                  int done = 0;
                                  MPI_Test(&p->request, &done, MPI_STATUS_IGNORE);
                                  return done != 0;
                                }),
                 pending_.end());
  auto pending = std::make_unique<Pending>();
  pending->bytes = message;
  check(MPI_Isend(pending->bytes.data(), static_cast<int>(pending->bytes.size()), MPI_CHAR, 0, kProgressTag,
                  MPI_COMM_WORLD, &pending->request),
        "MPI_Isend");
  pending_.push_back(std::move(pending));
}

bool MpiSession::receive_at_root(std::string& message, int& source) {
  if (!initialised_ || rank_ != 0) return false;
  int waiting = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, MPI_COMM_WORLD, &waiting, &status), "MPI_Iprobe");
  if (!waiting) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  message.resize(static_cast<std::size_t>(count));
  check(MPI_Recv(message.data(), count, MPI_CHAR, status.MPI_SOURCE, kProgressTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  source = status.MPI_SOURCE;
  return true;
}

void MpiSession::complete_sends() {
  for (const std::unique_ptr<Pending>& pending : pending_) MPI_Wait(&pending->request, MPI_STATUS_IGNORE);
  pending_.clear();
}

void MpiSession::scatter_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                              std::size_t row_bytes, void* receive, int root) {
  if (!initialised_) {
    if (send != receive && !counts.empty() && counts[0] > 0)
      std::memmove(receive, static_cast<const char*>(send) + static_cast<std::size_t>(displacements[0]) * row_bytes,
                   static_cast<std::size_t>(counts[0]) * row_bytes);
    return;
  }
  const RowType row(row_bytes);
  in_rounds(counts, displacements, row_bytes, [&](std::vector<int>& round_counts, std::vector<int>& round_displacements, int first) {
    const int mine = round_counts[static_cast<std::size_t>(rank_)];
    check(MPI_Scatterv(send, round_counts.data(), round_displacements.data(), row.get(),
                       static_cast<char*>(receive) + static_cast<std::size_t>(first) * row_bytes, mine, row.get(), root,
                       MPI_COMM_WORLD),
          "MPI_Scatterv");
  });
}

void MpiSession::gather_rows(const void* send, const std::vector<int>& counts, const std::vector<int>& displacements,
                             std::size_t row_bytes, void* receive, bool root_in_place, int root) {
  if (!initialised_) {
    if (!root_in_place && !counts.empty() && counts[0] > 0)
      std::memmove(static_cast<char*>(receive) + static_cast<std::size_t>(displacements[0]) * row_bytes, send,
                   static_cast<std::size_t>(counts[0]) * row_bytes);
    return;
  }
  const RowType row(row_bytes);
  in_rounds(counts, displacements, row_bytes, [&](std::vector<int>& round_counts, std::vector<int>& round_displacements, int first) {
    const int mine = round_counts[static_cast<std::size_t>(rank_)];
    const void* from = static_cast<const char*>(send) + static_cast<std::size_t>(first) * row_bytes;
    if (rank_ == root && root_in_place) from = MPI_IN_PLACE;
    check(MPI_Gatherv(from, mine, row.get(), receive, round_counts.data(), round_displacements.data(), row.get(), root,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
  });
}

}  // namespace gausslab
