#include "gausslab/batch/cpu_share.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <thread>

namespace gausslab {

int host_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int cores_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return host_cores();
  return std::clamp(CPU_COUNT(&set), 1, host_cores());
}

int cpu_threads_per_rank(int requested, int ranks_on_host) {
  if (requested > 0) return requested;
  return std::max(1, std::min(cores_allowed(), host_cores() / std::max(1, ranks_on_host)));
}

int use_openmp_threads(int threads) {
  omp_set_num_threads(std::max(1, threads));
  return omp_get_max_threads();
}

}  // namespace gausslab
