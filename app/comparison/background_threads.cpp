#include "comparison/background_threads.hpp"

#include <omp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace gausslab {

int background_cpu_threads(int hardware_threads, int openmp_limit) {
  const int hardware = std::max(1, hardware_threads);
  const int left_free = hardware >= 2 ? std::clamp(hardware / 4, 1, 4) : 0;
  return std::max(1, std::min(hardware - left_free, std::max(1, openmp_limit)));
}

void use_background_cpu_share(bool lower_priority) {
  static thread_local bool done = false;  // once per thread: the callers run it at every job
  if (done) return;
  done = true;
  // omp_set_num_threads on a thread that is not in a team sets that thread's own setting only.
  omp_set_num_threads(background_cpu_threads(static_cast<int>(std::thread::hardware_concurrency()), omp_get_max_threads()));
  if (lower_priority) {
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    setpriority(PRIO_PROCESS, tid, 10);  // best effort: nothing to do when refused
  }
}

}  // namespace gausslab
